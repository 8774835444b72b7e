import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { ManualClock } from "../../../src/platform/clock";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { BROWSER_UA, beacon, createSite } from "./support";

const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
const clock = new ManualClock(T0);
let s: TestServer;
let u: TestUser;

beforeAll(async () => {
  // trust the proxy so tests can play different visitors through x-forwarded-for
  s = await startTestServer({ AIVIS_TRUST_PROXY: "true" }, { clock });
  u = await s.user();
});
afterAll(() => s.close());

const pageviews = (siteId: string) =>
  s.ctx.db.query<{ path: string; channel: string; source: string; engaged_ms: number; scroll_depth: number; visit_id: number; session_id: string }, { site: string }>(
    "SELECT path, channel, source, engaged_ms, scroll_depth, visit_id, session_id FROM traffic_pageviews WHERE site_id = $site ORDER BY id",
  ).all({ site: siteId });
const daily = (siteId: string) =>
  s.ctx.db.query<{ day: number; source: string; pageviews: number; visits: number; visitors: number; engaged_ms: number; scroll_sum: number; scroll_count: number }, { site: string }>(
    "SELECT day, source, pageviews, visits, visitors, engaged_ms, scroll_sum, scroll_count FROM traffic_daily WHERE site_id = $site ORDER BY day, source",
  ).all({ site: siteId });

describe("POST /v1/ai-traffic/collect", () => {
  test("a page view: 202, empty body, CORS for any origin, stored and classified", async () => {
    const site = await createSite(s, u, "collect.example");
    const r = await beacon(s, { siteKey: site.siteKey, path: "/guide", referrer: "https://chatgpt.com/", title: "Guide", sessionId: "tab1" }, { origin: "https://collect.example" });
    expect(r.status).toBe(202);
    expect(r.body).toBeNull();
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("x-aivis-dropped")).toBeNull();
    expect(pageviews(site.id)).toEqual([{ path: "/guide", channel: "ai", source: "ChatGPT", engaged_ms: 0, scroll_depth: 0, visit_id: expect.any(Number), session_id: "tab1" }]);
    expect(daily(site.id)).toEqual([{ day: Math.floor(T0 / 86_400_000), source: "ChatGPT", pageviews: 1, visits: 1, visitors: 1, engaged_ms: 0, scroll_sum: 0, scroll_count: 0 }]);
  });

  test("accepts text/plain, application/json and no content type; refuses other types with 415", async () => {
    const site = await createSite(s, u, "types.example");
    const body = JSON.stringify({ siteKey: site.siteKey, path: "/" });
    const send = (headers: Record<string, string>) =>
      fetch(`${s.url}/v1/ai-traffic/collect`, { method: "POST", headers: { "user-agent": BROWSER_UA, ...headers }, body });
    expect((await send({ "content-type": "text/plain" })).status).toBe(202);
    expect((await send({ "content-type": "application/json; charset=utf-8" })).status).toBe(202);
    // a Blob body without a type arrives with no content-type at all
    const bare = await fetch(`${s.url}/v1/ai-traffic/collect`, { method: "POST", headers: { "user-agent": BROWSER_UA }, body: new Blob([body]) });
    expect(bare.status).toBe(202);
    const form = await send({ "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect((await form.json()).errCode).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(form.headers.get("access-control-allow-origin")).toBe("*");
    expect(pageviews(site.id)).toHaveLength(3);
  });

  test("CORS preflight: 204, any origin, POST, content-type, long max-age", async () => {
    const r = await fetch(`${s.url}/v1/ai-traffic/collect`, {
      method: "OPTIONS",
      headers: { origin: "https://anywhere.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-methods")).toContain("POST");
    expect(r.headers.get("access-control-allow-headers")).toContain("content-type");
    expect(Number(r.headers.get("access-control-max-age"))).toBeGreaterThanOrEqual(86_400);
  });

  test("unknown siteKey → 404, inactive site → 403, reactivated → 202", async () => {
    const unknown = await beacon(s, { siteKey: "aivt_doesnotexist0000", path: "/" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errCode).toBe("UNKNOWN_SITE_KEY");
    expect(unknown.headers.get("access-control-allow-origin")).toBe("*");

    const site = await createSite(s, u, "inactive.example");
    await s.call("PATCH", `/v1/ai-traffic/sites/${site.id}`, { headers: u.headers, body: { isActive: false } });
    const off = await beacon(s, { siteKey: site.siteKey, path: "/" });
    expect(off.status).toBe(403);
    expect(off.body.errCode).toBe("SITE_INACTIVE");
    await s.call("PATCH", `/v1/ai-traffic/sites/${site.id}`, { headers: u.headers, body: { isActive: true } });
    expect((await beacon(s, { siteKey: site.siteKey, path: "/" })).status).toBe(202);
    expect(pageviews(site.id)).toHaveLength(1);
  });

  const over = (n: number) => "x".repeat(n);
  let boundsSite: { siteKey: string } | undefined;
  test.each([
    ["missing siteKey", { siteKey: undefined }],
    ["siteKey too long", { siteKey: over(65) }],
    ["path too long", { path: `/${over(1024)}` }],
    ["path not starting with /", { path: "https://example.com/a" }],
    ["referrer too long", { referrer: over(2049) }],
    ["title too long", { title: over(513) }],
    ["sessionId with bad characters", { sessionId: "a b" }],
    ["sessionId too long", { sessionId: over(65) }],
    ["userAgent too long", { userAgent: over(513) }],
    ["utmSource too long", { utmSource: over(257) }],
    ["utmMedium too long", { utmMedium: over(257) }],
    ["utmCampaign too long", { utmCampaign: over(257) }],
    ["negative sessionDurationMs", { sessionDurationMs: -1 }],
    ["sessionDurationMs over a day", { sessionDurationMs: 86_400_001 }],
    ["fractional sessionDurationMs", { sessionDurationMs: 1.5 }],
    ["scrollDepth over 100", { scrollDepth: 101 }],
    ["scrollDepth not a number", { scrollDepth: "deep" }],
  ])("%s → 400", async (_label, fields) => {
    boundsSite ??= await createSite(s, u, "bounds.example");
    const r = await beacon(s, { siteKey: boundsSite.siteKey, path: "/", ...fields });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("VALIDATION_FAILED");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("malformed JSON → 400 MALFORMED_BODY; body over 8 KB → 413", async () => {
    const bad = await beacon(s, "{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.errCode).toBe("MALFORMED_BODY");
    const big = await beacon(s, JSON.stringify({ siteKey: "aivt_x", title: over(9000) }));
    expect(big.status).toBe(413);
    expect(big.body.errCode).toBe("PAYLOAD_TOO_LARGE");
    expect(big.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("bots and missing user agents are acknowledged but dropped", async () => {
    const site = await createSite(s, u, "bots.example");
    const bot = await beacon(s, { siteKey: site.siteKey, path: "/" }, { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" });
    expect(bot.status).toBe(202);
    expect(bot.headers.get("x-aivis-dropped")).toBe("bot");
    const headless = await beacon(s, { siteKey: site.siteKey, path: "/", userAgent: "HeadlessChrome/120" });
    expect(headless.headers.get("x-aivis-dropped")).toBe("bot");
    const none = await fetch(`${s.url}/v1/ai-traffic/collect`, { method: "POST", headers: { "user-agent": "" }, body: JSON.stringify({ siteKey: site.siteKey }) });
    expect(none.status).toBe(202);
    expect(none.headers.get("x-aivis-dropped")).toBe("bot");
    expect(pageviews(site.id)).toHaveLength(0);
  });
});

describe("engagement updates", () => {
  test("attach to their page view (no new page view) and only ever grow", async () => {
    const site = await createSite(s, u, "engage.example");
    await beacon(s, { siteKey: site.siteKey, path: "/a", sessionId: "tabE", utmSource: "perplexity" });
    const first = await beacon(s, { siteKey: site.siteKey, path: "/a", sessionId: "tabE", sessionDurationMs: 4000, scrollDepth: 40 });
    expect(first.status).toBe(202);
    expect(first.headers.get("x-aivis-dropped")).toBeNull();
    // an older, smaller update arriving late changes nothing
    await beacon(s, { siteKey: site.siteKey, path: "/a", sessionId: "tabE", sessionDurationMs: 1000, scrollDepth: 20 });
    await beacon(s, { siteKey: site.siteKey, path: "/a", sessionId: "tabE", sessionDurationMs: 6000 });
    expect(pageviews(site.id)).toEqual([expect.objectContaining({ path: "/a", source: "Perplexity", engaged_ms: 6000, scroll_depth: 40 })]);
    expect(daily(site.id)).toEqual([expect.objectContaining({ source: "Perplexity", pageviews: 1, visits: 1, engaged_ms: 6000, scroll_sum: 40, scroll_count: 1 })]);
  });

  test("without a matching page view → 202 with x-aivis-dropped: no-pageview", async () => {
    const site = await createSite(s, u, "orphan.example");
    const r = await beacon(s, { siteKey: site.siteKey, path: "/never-viewed", sessionId: "tabO", sessionDurationMs: 100 });
    expect(r.status).toBe(202);
    expect(r.headers.get("x-aivis-dropped")).toBe("no-pageview");
    expect(daily(site.id)).toEqual([]);
  });
});

describe("visits and visitors", () => {
  test("a visit ends after 30 minutes without activity; the visitor counts once per day", async () => {
    const site = await createSite(s, u, "visits.example");
    const ip = { "x-forwarded-for": "198.51.100.7" };
    clock.set(T0);
    await beacon(s, { siteKey: site.siteKey, path: "/", referrer: "https://claude.ai/" }, ip);
    clock.set(T0 + 29 * 60_000);
    await beacon(s, { siteKey: site.siteKey, path: "/two", referrer: "https://www.google.com/" }, ip); // same visit: source stays Claude
    clock.set(T0 + 29 * 60_000 + 30 * 60_000 + 1);
    await beacon(s, { siteKey: site.siteKey, path: "/three", referrer: "https://www.google.com/" }, ip); // new visit, same visitor
    await beacon(s, { siteKey: site.siteKey, path: "/" }, { "x-forwarded-for": "198.51.100.8" }); // another visitor
    clock.set(T0);
    const rows = pageviews(site.id);
    expect(rows.map((r) => r.source)).toEqual(["Claude", "Claude", "Google", "Direct"]);
    expect(rows[0].visit_id).toBe(rows[1].visit_id);
    expect(rows[2].visit_id).not.toBe(rows[1].visit_id);
    expect(daily(site.id)).toEqual([
      expect.objectContaining({ source: "Claude", pageviews: 2, visits: 1, visitors: 1 }),
      expect.objectContaining({ source: "Direct", pageviews: 1, visits: 1, visitors: 1 }),
      expect.objectContaining({ source: "Google", pageviews: 1, visits: 1, visitors: 0 }),
    ]);
  });

  test("a visit spans midnight (yesterday's salt is kept); only two salts ever exist", async () => {
    const site = await createSite(s, u, "midnight.example");
    const ip = { "x-forwarded-for": "198.51.100.9" };
    const midnight = Date.UTC(2026, 2, 12);
    clock.set(midnight - 10 * 60_000);
    await beacon(s, { siteKey: site.siteKey, path: "/late", utmSource: "chatgpt.com" }, ip);
    clock.set(midnight + 10 * 60_000);
    await beacon(s, { siteKey: site.siteKey, path: "/after-midnight" }, ip);
    clock.set(T0);
    const rows = pageviews(site.id);
    expect(rows[0].visit_id).toBe(rows[1].visit_id);
    expect(rows.map((r) => r.source)).toEqual(["ChatGPT", "ChatGPT"]);
    const days = daily(site.id);
    expect(days.map((d) => [d.pageviews, d.visits])).toEqual([[1, 1], [1, 0]]);
    const salts = s.ctx.db.query<{ day: number }, []>("SELECT day FROM traffic_salts ORDER BY day").all();
    expect(salts.length).toBeLessThanOrEqual(2);
  });

  test("no raw IP is stored anywhere in the database file", async () => {
    const site = await createSite(s, u, "privacy.example");
    const ip = "203.0.113.201";
    await beacon(s, { siteKey: site.siteKey, path: "/p" }, { "x-forwarded-for": ip });
    s.ctx.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(s.ctx.config.dbPath).toString("latin1");
    expect(bytes).toContain("privacy.example"); // the check reads the live file
    expect(bytes).not.toContain(ip);
    const visitor = s.ctx.db.query<{ visitor_id: string }, { site: string }>("SELECT visitor_id FROM traffic_visits WHERE site_id = $site").get({ site: site.id })!;
    expect(visitor.visitor_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  test("concurrent beacons are all acknowledged and all stored", async () => {
    const site = await createSite(s, u, "burst.example");
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => beacon(s, { siteKey: site.siteKey, path: `/burst/${i}` }, { "x-forwarded-for": `192.0.2.${i % 250}` })),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    expect(pageviews(site.id)).toHaveLength(300);
    const total = daily(site.id).reduce((n, d) => n + d.pageviews, 0);
    expect(total).toBe(300);
  });
});

describe("GET /v1/ai-traffic/t.js", () => {
  test("served gzipped with caching, CORS, CORP and nosniff headers; ≤ 1.5 KB gzip", async () => {
    const r = await fetch(`${s.url}/v1/ai-traffic/t.js`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("public, max-age=86400, must-revalidate");
    expect(r.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("content-encoding")).toBe("gzip");
    const gz = new Uint8Array(await r.arrayBuffer());
    console.log(`tracker script: ${gz.byteLength} bytes gzipped`);
    expect(gz.byteLength).toBeLessThanOrEqual(1536);
    const text = gunzipSync(gz).toString();
    expect(text).toContain('"./collect"');
    expect(text).not.toContain("__COLLECT__");
    expect(text).toContain("data-allow-local");
  });

  test("If-None-Match with the ETag → 304; no gzip support → plain body", async () => {
    const first = await fetch(`${s.url}/v1/ai-traffic/t.js`, { headers: { "accept-encoding": "identity" } });
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("content-encoding")).toBeNull();
    expect(await first.text()).toStartWith("(function(");
    const again = await fetch(`${s.url}/v1/ai-traffic/t.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("first-party alias paths", () => {
  test("the script and the beacon also answer at the configured paths; the script posts to the alias", async () => {
    const a = await startTestServer({ AIVIS_TRACKER_SCRIPT_PATH: "/stats/s.js", AIVIS_TRACKER_COLLECT_PATH: "/stats/e" });
    try {
      const au = await a.user();
      const site = await createSite(a, au, "alias.example");
      const script = await fetch(`${a.url}/stats/s.js`, { headers: { "accept-encoding": "identity" } });
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toContain("javascript");
      const text = await script.text();
      expect(text).toContain('"./e"');
      const canonical = await (await fetch(`${a.url}/v1/ai-traffic/t.js`, { headers: { "accept-encoding": "identity" } })).text();
      expect(canonical).toContain('"./collect"');
      const pre = await fetch(`${a.url}/stats/e`, { method: "OPTIONS" });
      expect(pre.status).toBe(204);
      const r = await fetch(`${a.url}/stats/e`, { method: "POST", headers: { "user-agent": BROWSER_UA }, body: JSON.stringify({ siteKey: site.siteKey, path: "/x" }) });
      expect(r.status).toBe(202);
      expect(a.ctx.db.query("SELECT count(*) AS n FROM traffic_pageviews WHERE site_id = $s").get({ s: site.id })).toEqual({ n: 1 });
    } finally {
      await a.close();
    }
  });
});

describe("shutdown", () => {
  test("events waiting for the next flush are committed before the database closes", async () => {
    const slow = await startTestServer({ AIVIS_INGEST_FLUSH_MS: "1000" });
    const su = await slow.user();
    const site = await createSite(slow, su, "shutdown.example");
    const pending = beacon(slow, { siteKey: site.siteKey, path: "/last" });
    await Bun.sleep(100); // the request is in, waiting for the batch timer
    await slow.stop();
    expect((await pending).status).toBe(202);
    const db = new Database(slow.ctx.config.dbPath, { readonly: true });
    expect(db.query("SELECT path FROM traffic_pageviews").all()).toEqual([{ path: "/last" }]);
    db.close();
    await slow.close();
  });
});
