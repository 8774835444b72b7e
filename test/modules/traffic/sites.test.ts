import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../support/server";
import { createSite } from "./support";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("POST /v1/ai-traffic/sites", () => {
  test("normalizes the domain and answers 201 with key, snippet and script URL", async () => {
    const u = await s.user();
    const r = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "https://WWW.Shop.Example.com:443/pricing?x=1" } });
    expect(r.status).toBe(201);
    expect(r.body.domain).toBe("shop.example.com");
    expect(r.body.name).toBe("shop.example.com");
    expect(r.body.isActive).toBe(true);
    expect(r.body.siteKey).toMatch(/^aivt_[A-Za-z0-9_-]{16}$/);
    expect(r.body.scriptUrl).toBe(`${s.url}/v1/ai-traffic/t.js`);
    expect(r.body.snippet).toBe(`<script defer src="${s.url}/v1/ai-traffic/t.js" data-site="${r.body.siteKey}"></script>`);
    expect(Date.parse(r.body.createdAt)).toBeGreaterThan(0);
    expect(r.body.createdAt).toEndWith("Z");
  });

  test("a name is kept; IDN domains become punycode", async () => {
    const u = await s.user();
    const r = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "bücher.de", name: "Books" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ domain: "xn--bcher-kva.de", name: "Books" });
  });

  test("the same domain again (any spelling) returns the existing site with 200", async () => {
    const u = await s.user();
    const a = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "example.org" } });
    const b = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "https://www.EXAMPLE.org/", name: "other" } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.id).toBe(a.body.id);
    expect(b.body.siteKey).toBe(a.body.siteKey);
    expect(b.body.name).toBe("example.org");
    // another workspace may track the same domain separately
    const other = await s.user();
    const c = await s.call("POST", "/v1/ai-traffic/sites", { headers: other.headers, body: { domain: "example.org" } });
    expect(c.status).toBe(201);
    expect(c.body.id).not.toBe(a.body.id);
  });

  test.each([
    [{ domain: "localhost" }, "INVALID_DOMAIN"],
    [{ domain: "10.0.0.1" }, "INVALID_DOMAIN"],
    [{ domain: "ftp://example.com" }, "INVALID_DOMAIN"],
    [{ domain: "not a domain" }, "INVALID_DOMAIN"],
    [{}, "VALIDATION_FAILED"],
    [{ domain: "" }, "VALIDATION_FAILED"],
    [{ domain: "a.com", name: "n".repeat(201) }, "VALIDATION_FAILED"],
    [{ domain: `${"a".repeat(2049)}.com` }, "VALIDATION_FAILED"],
  ])("invalid body %j → 400 %s", async (body, errCode) => {
    const u = await s.user();
    const r = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe(errCode);
  });

  test("needs an api key (or session)", async () => {
    const r = await s.call("POST", "/v1/ai-traffic/sites", { body: { domain: "example.com" } });
    expect(r.status).toBe(401);
    const u = await s.user();
    const h = await s.login(u);
    expect((await s.call("POST", "/v1/ai-traffic/sites", { headers: h, body: { domain: "session.example" } })).status).toBe(201);
  });

  test("at most 50 sites per workspace → 403 SITE_LIMIT_REACHED", async () => {
    const u = await s.user();
    for (let i = 0; i < 50; i++) await createSite(s, u, `site${i}.example`);
    const r = await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "one-too-many.example" } });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("SITE_LIMIT_REACHED");
    // an existing domain still answers with its site
    expect((await s.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "site3.example" } })).status).toBe(200);
  });
});

describe("GET /v1/ai-traffic/sites", () => {
  test("lists only the caller's workspace, oldest first; teammates see the same sites", async () => {
    const u = await s.user();
    const mate = await s.user("business", { join: u.email });
    const stranger = await s.user();
    const a = await createSite(s, u, "first.example");
    const b = await createSite(s, mate, "second.example");
    await createSite(s, stranger, "stranger.example");
    const r = await s.call("GET", "/v1/ai-traffic/sites", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body.sites.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect(r.body.sites[0]).toMatchObject({ domain: "first.example", isActive: true, scriptUrl: `${s.url}/v1/ai-traffic/t.js` });
    expect((await s.call("GET", "/v1/ai-traffic/sites", { headers: stranger.headers })).body.sites).toHaveLength(1);
  });
});

describe("PATCH /v1/ai-traffic/sites/:id", () => {
  test("renames and deactivates; another workspace's site is a 404", async () => {
    const u = await s.user();
    const site = await createSite(s, u, "patch.example");
    const r = await s.call("PATCH", `/v1/ai-traffic/sites/${site.id}`, { headers: u.headers, body: { name: "Shop", isActive: false } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: site.id, name: "Shop", isActive: false });
    const stranger = await s.user();
    const x = await s.call("PATCH", `/v1/ai-traffic/sites/${site.id}`, { headers: stranger.headers, body: { isActive: true } });
    expect(x.status).toBe(404);
    expect(x.body.errCode).toBe("SITE_NOT_FOUND");
    expect((await s.call("PATCH", `/v1/ai-traffic/sites/${site.id}`, { headers: u.headers, body: {} })).status).toBe(400);
  });
});

describe("POST /v1/ai-traffic/sites/ensure", () => {
  test("no site and no website → site null, needsDomain true", async () => {
    const u = await s.user();
    const r = await s.call("POST", "/v1/ai-traffic/sites/ensure", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ site: null, needsDomain: true });
  });

  test("creates from the team website (201), then returns the same site (200)", async () => {
    const u = await s.user();
    s.ctx.db.query("UPDATE workspaces SET website_url = $url WHERE id = $id").run({ url: "https://www.team-site.example/about", id: u.workspaceId });
    s.ctx.db.query("UPDATE users SET website_url = $url WHERE id = $id").run({ url: "https://own-site.example", id: u.userId });
    const a = await s.call("POST", "/v1/ai-traffic/sites/ensure", { headers: u.headers });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ needsDomain: false, created: true, site: { domain: "team-site.example" } });
    expect(a.body.site.snippet).toContain(a.body.site.siteKey);
    const b = await s.call("POST", "/v1/ai-traffic/sites/ensure", { headers: u.headers });
    expect(b.status).toBe(200);
    expect(b.body.site.id).toBe(a.body.site.id);
    expect(b.body.created).toBe(false);
  });

  test("falls back to the user's website; an existing site wins over both", async () => {
    const u = await s.user();
    s.ctx.db.query("UPDATE users SET website_url = $url WHERE id = $id").run({ url: "https://own-site.example", id: u.userId });
    const a = await s.call("POST", "/v1/ai-traffic/sites/ensure", { headers: u.headers });
    expect(a.status).toBe(201);
    expect(a.body.site.domain).toBe("own-site.example");

    const v = await s.user();
    const existing = await createSite(s, v, "already.example");
    s.ctx.db.query("UPDATE workspaces SET website_url = $url WHERE id = $id").run({ url: "https://team.example", id: v.workspaceId });
    const b = await s.call("POST", "/v1/ai-traffic/sites/ensure", { headers: v.headers });
    expect(b.status).toBe(200);
    expect(b.body.site.id).toBe(existing.id);
  });
});

describe("public base URL", () => {
  test("AIVIS_PUBLIC_URL is used in the snippet instead of the request origin", async () => {
    const p = await startTestServer({ AIVIS_PUBLIC_URL: "https://aivis.example.net/" });
    try {
      const u = await p.user();
      const r = await p.call("POST", "/v1/ai-traffic/sites", { headers: u.headers, body: { domain: "example.com" } });
      expect(r.body.scriptUrl).toBe("https://aivis.example.net/v1/ai-traffic/t.js");
      expect(r.body.snippet).toBe(`<script defer src="https://aivis.example.net/v1/ai-traffic/t.js" data-site="${r.body.siteKey}"></script>`);
    } finally {
      await p.close();
    }
  });
});
