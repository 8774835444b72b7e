// A local website for outbound-fetch tests: http or https with a self-signed certificate this
// file generates with openssl (valid for localhost and 127.0.0.1), routes given per test.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";

export interface TestCert {
  certPath: string;
  keyPath: string;
  pem: string;
}

let cert: TestCert | undefined;

/** One self-signed certificate per test process (openssl is slow on a busy 2-core box). */
export function testCertificate(): TestCert {
  if (cert) return cert;
  const dir = mkdtempSync(join(tmpdir(), "aivis-cert-"));
  const certPath = join(dir, "cert.pem");
  const keyPath = join(dir, "key.pem");
  const r = Bun.spawnSync([
    "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", certPath, "-days", "2",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ]);
  if (r.exitCode !== 0) throw new Error(`openssl failed: ${r.stderr.toString()}`);
  cert = { certPath, keyPath, pem: readFileSync(certPath, "utf8") };
  return cert;
}

let trusted = false;

/**
 * Adds the test certificate to this process's default CAs — the in-process stand-in for
 * NODE_EXTRA_CA_CERTS, which is only read at start-up (test/lib/safe-fetch.test.ts checks the
 * variable itself in a child process).
 */
export function trustTestCertificate(): void {
  if (trusted) return;
  const t = tls as unknown as { setDefaultCACertificates(c: string[]): void; getCACertificates(k: string): string[] };
  t.setDefaultCACertificates([...t.getCACertificates("default"), testCertificate().pem]);
  trusted = true;
}

export type Route = (req: Request, site: TestSite) => Response | Promise<Response>;

export interface TestSite {
  /** e.g. https://127.0.0.1:43123 */
  origin: string;
  port: number;
  /** paths requested, in order */
  hits: string[];
  /** replace or add a route while the site runs */
  route(path: string, handler: Route): void;
  close(): void;
}

export function startSite(routes: Record<string, Route>, opts: { https?: boolean } = {}): TestSite {
  const table = new Map(Object.entries(routes));
  const hits: string[] = [];
  const useTls = opts.https ?? true;
  const c = useTls ? testCertificate() : undefined;
  const site: TestSite = {
    origin: "",
    port: 0,
    hits,
    route: (path, handler) => void table.set(path, handler),
    close: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: c ? { cert: readFileSync(c.certPath, "utf8"), key: readFileSync(c.keyPath, "utf8") } : undefined,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      const handler = table.get(path);
      return handler ? handler(req, site) : new Response("not found", { status: 404 });
    },
  });
  site.port = server.port!;
  site.origin = `${useTls ? "https" : "http"}://127.0.0.1:${server.port}`;
  return site;
}

export const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });
