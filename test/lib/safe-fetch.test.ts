import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { join } from "node:path";
import { classifyAddress } from "../../src/lib/address-policy";
import { fetchPageText, safeFetch, type SafeFetchOptions } from "../../src/lib/safe-fetch";
import { AppError } from "../../src/http/errors";
import { html, startSite, testCertificate, trustTestCertificate, type TestSite } from "../support/https-site";

const strict: SafeFetchOptions = { config: { fetchAllowPrivate: false } };
const open: SafeFetchOptions = { config: { fetchAllowPrivate: true }, httpsOnly: false };

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected the fetch to fail");
}

let site: TestSite;
beforeAll(() => {
  site = startSite(
    {
      "/page": () => html("<html><head><title>Acme</title><meta name=description content='We make widgets'></head><body><nav>Menu</nav><article><h1>About Acme</h1><p>We write plainly and warmly for small businesses.</p><p>Every widget we ship is tested twice.</p></article></body></html>"),
      "/big": () => html("x".repeat(3_000_000)),
      "/big-chunked": () =>
        new Response(
          new ReadableStream({
            start(c) {
              for (let i = 0; i < 40; i++) c.enqueue(new TextEncoder().encode("y".repeat(100_000)));
              c.close();
            },
          }),
          { headers: { "content-type": "text/html" } },
        ),
      "/bomb": () => new Response(Bun.gzipSync(new Uint8Array(20_000_000)), { headers: { "content-type": "text/plain", "content-encoding": "gzip" } }),
      "/gzip": () => new Response(Bun.gzipSync("compressed hello"), { headers: { "content-type": "text/plain", "content-encoding": "gzip" } }),
      "/binary": () => new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } }),
      "/latin1": () => new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), { headers: { "content-type": "text/plain; charset=iso-8859-1" } }),
      // "café" in windows-1252, the charset named only by the page's <meta>
      "/meta-charset": () => new Response(new Uint8Array([...new TextEncoder().encode('<html><head><meta charset="windows-1252"><title>caf'), 0xe9, ...new TextEncoder().encode("</title></head><body><p>ok</p></body></html>")]), { headers: { "content-type": "text/html" } }),
      "/meta-http-equiv": () => new Response(new Uint8Array([...new TextEncoder().encode('<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><title>caf'), 0xe9, ...new TextEncoder().encode("</title></head></html>")]), { headers: { "content-type": "text/html" } }),
      "/utf16-bom": () => new Response(new Uint8Array([0xff, 0xfe, ...Array.from("héllo").flatMap((c) => [c.charCodeAt(0), 0])]), { headers: { "content-type": "text/plain; charset=iso-8859-1" } }),
      "/to-port-25": () => new Response(null, { status: 302, headers: { location: `http://127.0.0.1:25/` } }),
      "/to-loopback": () => new Response(null, { status: 302, headers: { location: "http://127.0.0.2:1/secret" } }),
      "/to-metadata": () => new Response(null, { status: 301, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
      "/to-mapped": () => new Response(null, { status: 307, headers: { location: "http://[::ffff:127.0.0.1]/" } }),
      "/to-page": () => new Response(null, { status: 302, headers: { location: "/page" } }),
      "/loop": () => new Response(null, { status: 302, headers: { location: "/loop" } }),
      "/missing": () => new Response("gone", { status: 404, headers: { "content-type": "text/html" } }),
      "/slow": async () => {
        await Bun.sleep(5_000);
        return html("late");
      },
    },
    { https: false },
  );
});
afterAll(() => site.close());

describe("URL shape", () => {
  test.each([
    ["http://example.com/", "INVALID_URL"],
    ["ftp://example.com/x.txt", "INVALID_URL"],
    ["file:///etc/passwd", "INVALID_URL"],
    ["https://user:pw@example.com/", "INVALID_URL"],
    ["not a url", "INVALID_URL"],
    [`https://example.com/${"a".repeat(2100)}`, "INVALID_URL"],
  ])("%s → 400 %s", async (url, code) => {
    const err = await failure(safeFetch(url, strict));
    expect(err.status).toBe(400);
    expect(err.errCode).toBe(code);
  });
});

describe("SSRF: addresses are checked after resolution, before connecting", () => {
  test.each([
    "https://127.0.0.1/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://2130706433/", // decimal 127.0.0.1
    "https://0x7f.1/", // hex/short form of 127.0.0.1
    "https://[::ffff:7f00:1]/", // IPv4-mapped, hex form
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.0.10/",
    "https://100.64.1.1/", // CGNAT
    "https://224.0.0.1/", // multicast
    "https://169.254.169.254/latest/meta-data/",
    "https://169.254.1.1/", // link-local
    "https://[::ffff:169.254.169.254]/",
    "https://[64:ff9b::a9fe:a9fe]/", // NAT64 form of 169.254.169.254
    "https://[fd00:ec2::254]/",
    "https://[fc00::1]/", // ULA
    "https://[fd12:3456::1]/", // ULA
    "https://[fe80::1]/",
    "https://[ff02::1]/", // IPv6 multicast
    "https://0.0.0.0/",
    "https://localhost/",
  ])("%s → 400 URL_NOT_ALLOWED", async (url) => {
    const err = await failure(safeFetch(url, strict));
    expect(err.status).toBe(400);
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
  });

  test("a hostname whose DNS answer is private is refused", async () => {
    const err = await failure(safeFetch("https://intranet.example/", { ...strict, resolveHost: async () => ["10.0.0.5"] }));
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
    expect(err.message).toContain("10.0.0.5");
  });

  test.each(["::ffff:10.0.0.5", "fd00::5", "fe80::5", "100.64.0.5"])("a DNS answer %s is refused", async (answer) => {
    const err = await failure(safeFetch("https://sneaky.example/", { ...strict, resolveHost: async () => [answer] }));
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
  });

  test("one private address among public ones refuses the host (no picking the good one)", async () => {
    const err = await failure(safeFetch("https://mixed.example/", { ...strict, resolveHost: async () => ["93.184.216.34", "127.0.0.1"] }));
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
  });

  test("the connection goes to the checked address, not to a second DNS answer", async () => {
    // the name resolves (once, via our resolver) to the test site; a rebinding resolver would be asked again
    let asked = 0;
    const r = await safeFetch(`http://rebind.example:${site.port}/page`, {
      ...open,
      resolveHost: async () => {
        asked++;
        return ["127.0.0.1"];
      },
    });
    expect(r.status).toBe(200);
    expect(asked).toBe(1);
  });

  // a policy that treats the loopback test site as public, so the redirect target is judged by the real rules
  const siteIsPublic: SafeFetchOptions = {
    config: { fetchAllowPrivate: false },
    httpsOnly: false,
    classify: (a) => (a === "127.0.0.1" ? { allowed: true, address: a, range: "unicast" } : classifyAddress(a)),
  };
  const siteIsPublicOnItsPort = (): SafeFetchOptions => ({ ...siteIsPublic, ports: [80, 443, site.port] });

  test.each(["/to-loopback", "/to-metadata", "/to-mapped"])("redirect %s is re-checked and refused", async (path) => {
    const err = await failure(safeFetch(`${site.origin}${path}`, siteIsPublicOnItsPort()));
    expect(err.status).toBe(400);
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
    expect(err.message).toContain("non-public address");
  });

  test("a redirect to an allowed address is followed and reported", async () => {
    const r = await safeFetch(`${site.origin}/to-page`, siteIsPublicOnItsPort());
    expect(r.url).toBe(`${site.origin}/page`);
    expect(r.redirects).toEqual([`${site.origin}/to-page`]);
  });

  test("an https URL may not redirect to http", async () => {
    trustTestCertificate();
    const s = startSite({ "/": () => new Response(null, { status: 302, headers: { location: `${site.origin}/page` } }) }, { https: true });
    try {
      const err = await failure(safeFetch(`${s.origin}/`, { config: { fetchAllowPrivate: true } }));
      expect(err.errCode).toBe("INVALID_URL");
      expect(s.hits).toEqual(["/"]);
    } finally {
      s.close();
    }
  });

  test.each(["https://public.example:8443/", "http://public.example:8080/", "https://public.example:22/", "https://93.184.216.34:25/"])(
    "a public host on a port other than 80/443 is refused: %s",
    async (url) => {
      const err = await failure(safeFetch(url, { ...strict, httpsOnly: false, resolveHost: async () => ["93.184.216.34"] }));
      expect(err.status).toBe(400);
      expect(err.errCode).toBe("URL_NOT_ALLOWED");
      expect(err.message).toMatch(/^port \d+ is not allowed/);
    },
  );

  test("the port is re-checked on a redirect", async () => {
    const err = await failure(safeFetch(`${site.origin}/to-port-25`, siteIsPublicOnItsPort()));
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
    expect(err.message).toContain("port 25");
  });

  test("a loopback test site on its own port counts as public only when the port is allowed too", async () => {
    const err = await failure(safeFetch(`${site.origin}/page`, siteIsPublic));
    expect(err.errCode).toBe("URL_NOT_ALLOWED");
    expect(err.message).toContain(`port ${site.port}`);
  });

  test("AIVIS_FETCH_ALLOW_PRIVATE lifts the address check (and the port rule)", async () => {
    const r = await safeFetch(`${site.origin}/page`, open);
    expect(r.status).toBe(200);
    expect(r.mediaType).toBe("text/html");
  });
});

describe("limits", () => {
  test("a body over the cap (declared length) → FETCH_TOO_LARGE", async () => {
    const err = await failure(safeFetch(`${site.origin}/big`, { ...open, maxBytes: 1_000_000 }));
    expect(err.errCode).toBe("FETCH_TOO_LARGE");
    expect(err.status).toBe(422);
  });

  test("a streamed body over the cap → FETCH_TOO_LARGE", async () => {
    const err = await failure(safeFetch(`${site.origin}/big-chunked`, { ...open, maxBytes: 1_000_000 }));
    expect(err.errCode).toBe("FETCH_TOO_LARGE");
  });

  test("the cap applies to the decompressed size (gzip bomb)", async () => {
    const err = await failure(safeFetch(`${site.origin}/bomb`, { ...open, accept: ["text/plain"], maxBytes: 1_000_000 }));
    expect(err.errCode).toBe("FETCH_TOO_LARGE");
  });

  test("gzip bodies are decoded", async () => {
    const r = await safeFetch(`${site.origin}/gzip`, { ...open, accept: ["text/*"] });
    expect(r.text()).toBe("compressed hello");
  });

  test("a content type outside the allow-list → FETCH_CONTENT_TYPE", async () => {
    const err = await failure(safeFetch(`${site.origin}/binary`, open));
    expect(err.errCode).toBe("FETCH_CONTENT_TYPE");
    expect(err.message).toContain("image/png");
  });

  test("the declared charset is used", async () => {
    const r = await safeFetch(`${site.origin}/latin1`, { ...open, accept: ["text/plain"] });
    expect(r.charset).toBe("iso-8859-1");
    expect(r.text()).toBe("café");
  });

  test("without a charset header, an HTML page's <meta charset> is used", async () => {
    const r = await safeFetch(`${site.origin}/meta-charset`, open);
    expect(r.charset).toBe("windows-1252");
    expect((await fetchPageText(`${site.origin}/meta-charset`, open)).title).toBe("café");
    const equiv = await safeFetch(`${site.origin}/meta-http-equiv`, open);
    expect(equiv.charset).toBe("iso-8859-1");
    expect(equiv.text()).toContain("<title>café</title>");
  });

  test("a byte-order mark wins over the header", async () => {
    const r = await safeFetch(`${site.origin}/utf16-bom`, { ...open, accept: ["text/plain"] });
    expect(r.charset).toBe("utf-16le");
    expect(r.text()).toBe("héllo");
  });

  test("redirect loops stop at the bound → FETCH_TOO_MANY_REDIRECTS", async () => {
    const err = await failure(safeFetch(`${site.origin}/loop`, { ...open, maxRedirects: 3 }));
    expect(err.errCode).toBe("FETCH_TOO_MANY_REDIRECTS");
  });

  test("a slow server hits the total timeout → FETCH_TIMEOUT", async () => {
    const err = await failure(safeFetch(`${site.origin}/slow`, { ...open, timeoutMs: 300 }));
    expect(err.errCode).toBe("FETCH_TIMEOUT");
  });

  test("a server that accepts TCP but never completes TLS hits the connect timeout, not the total one", async () => {
    const silent = net.createServer((socket) => socket.on("error", () => {}));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const err = await failure(safeFetch(`https://127.0.0.1:${port}/`, { config: { fetchAllowPrivate: true }, connectTimeoutMs: 200, timeoutMs: 60_000 }));
      expect(err.errCode).toBe("FETCH_TIMEOUT");
      expect(err.message).toBe(`could not connect to 127.0.0.1:${port} within 200 ms`);
    } finally {
      silent.close();
    }
  });

  test("a DNS lookup that never answers is bounded by the total timeout", async () => {
    const err = await failure(safeFetch("https://hanging-dns.example/", { ...strict, timeoutMs: 200, resolveHost: () => new Promise(() => {}) }));
    expect(err.errCode).toBe("FETCH_TIMEOUT");
  });

  test("a non-2xx answer → FETCH_FAILED naming the status", async () => {
    const err = await failure(safeFetch(`${site.origin}/missing`, open));
    expect(err.errCode).toBe("FETCH_FAILED");
    expect(err.message).toContain("404");
  });

  test("a refused connection → FETCH_FAILED", async () => {
    const err = await failure(safeFetch("http://127.0.0.1:1/", open));
    expect(err.errCode).toBe("FETCH_FAILED");
  });
});

test("fetchPageText returns title, description and the article text without navigation", async () => {
  const page = await fetchPageText(`${site.origin}/page`, open);
  expect(page.title).toBe("Acme");
  expect(page.description).toBe("We make widgets");
  expect(page.text).toContain("We write plainly and warmly for small businesses.");
  expect(page.text).toContain("Every widget we ship is tested twice.");
  expect(page.text).not.toContain("Menu");
});

describe("https with a self-signed certificate and NODE_EXTRA_CA_CERTS (child bun process)", () => {
  let tlsSite: TestSite;
  beforeAll(() => {
    tlsSite = startSite({ "/": () => html("<html><head><title>Secure</title></head><body><p>served over TLS</p></body></html>") }, { https: true });
  });
  afterAll(() => tlsSite.close());

  const script = join(import.meta.dir, "..", "..", "src", "lib", "safe-fetch.ts");
  // async spawn: the TLS site lives in this process, so the event loop must keep running
  const child = async (env: Record<string, string>) => {
    const code = `
      const { fetchPageText } = await import(${JSON.stringify(script)});
      try {
        const p = await fetchPageText(${JSON.stringify(`${tlsSite.origin}/`)}, { config: { fetchAllowPrivate: true } });
        console.log(JSON.stringify({ ok: true, title: p.title, text: p.text }));
      } catch (e) {
        console.log(JSON.stringify({ ok: false, errCode: e.errCode, message: e.message }));
      }`;
    const env2: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env };
    const proc = Bun.spawn([process.execPath, "-e", code], { env: env2, stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    const lines = out.trim().split("\n");
    return JSON.parse(lines[lines.length - 1]);
  };

  test("with NODE_EXTRA_CA_CERTS pointing at the test certificate, the fetch succeeds", async () => {
    const r = await child({ NODE_EXTRA_CA_CERTS: testCertificate().certPath });
    expect(r).toEqual({ ok: true, title: "Secure", text: "served over TLS" });
  });

  test("without it, the untrusted certificate fails the fetch (FETCH_FAILED)", async () => {
    const r = await child({});
    expect(r.ok).toBe(false);
    expect(r.errCode).toBe("FETCH_FAILED");
  });
});
