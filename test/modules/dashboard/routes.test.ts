// The dashboard's HTTP surface without a browser: redirect, shell, embedded assets, caching, 404s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startTestServer, type TestServer } from "../../support/server";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const raw = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { headers, redirect: "manual" });

describe("dashboard routes", () => {
  test("GET / redirects to /app", async () => {
    const r = await raw("/");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/app");
  });

  test("/app and client-routed sub-paths get the same HTML shell with a strict CSP", async () => {
    const a = await raw("/app");
    const b = await raw("/app/traffic");
    const c = await raw("/app/no/such/page");
    for (const r of [a, b, c]) {
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    }
    const html = await a.text();
    expect(await b.text()).toBe(html);
    expect(html).toContain('<main id="main"');
    expect(html).toContain('<nav id="nav" aria-label="Main"');
    expect(html).toContain('<script type="module" src="/app/assets/app.js">');
    expect(html).not.toMatch(/https?:\/\//); // no CDN, nothing off-site
  });

  test("assets are the embedded files, with types and an ETag that answers 304", async () => {
    const js = await raw("/app/assets/app.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await js.text()).toBe(readFileSync(resolve(import.meta.dir, "../../../src/modules/dashboard/client/app.js"), "utf8"));

    const uplot = await raw("/app/assets/uPlot.iife.min.js");
    expect(await uplot.text()).toBe(readFileSync(resolve(import.meta.dir, "../../../node_modules/uplot/dist/uPlot.iife.min.js"), "utf8"));
    const css = await raw("/app/assets/uPlot.min.css");
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");

    const etag = js.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    const again = await raw("/app/assets/app.js", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  test("assets are gzipped for clients that accept it", async () => {
    const plain = await (await raw("/app/assets/uPlot.iife.min.js", { "accept-encoding": "identity" })).text();
    const res = await fetch(`${s.url}/app/assets/uPlot.iife.min.js`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("accept-encoding");
    const zipped = new Uint8Array(await res.arrayBuffer());
    expect(zipped.byteLength).toBeLessThan(plain.length / 2);
    expect(new TextDecoder().decode(Bun.gunzipSync(zipped))).toBe(plain);
  });

  test("an unknown asset is a JSON 404, never the shell", async () => {
    const r = await s.call("GET", "/app/assets/nope.js");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: "no dashboard asset named nope.js", errCode: "ASSET_NOT_FOUND" });
    const traversal = await s.call("GET", "/app/assets/..%2F..%2Fpackage.json");
    expect(traversal.status).toBe(404);
    // deeper or empty names are missing files too, not the client-routed shell
    for (const path of ["/app/assets/sub/app.js", "/app/assets/"]) {
      const r = await s.call("GET", path);
      expect(r.status).toBe(404);
      expect(r.body.errCode).toBe("ASSET_NOT_FOUND");
    }
  });

  test("dashboard routes stay out of the OpenAPI document", async () => {
    const doc = await s.call("GET", "/openapi.json");
    expect(Object.keys(doc.body.paths)).not.toContain("/app");
    expect(Object.keys(doc.body.paths)).not.toContain("/app/assets/{file}");
  });
});
