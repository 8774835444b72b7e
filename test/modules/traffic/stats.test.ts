import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/platform/clock";
import { trafficSummary } from "../../../src/modules/traffic/service";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { beacon, createSite } from "./support";

const DAY = 86_400_000;
const TODAY = Date.UTC(2026, 4, 20, 15, 0, 0);
const clock = new ManualClock(TODAY);
let s: TestServer;
let u: TestUser;
let site: { id: string; siteKey: string };

/** one page view as a distinct visitor (own IP) at the given time */
async function visit(at: number, ip: string, fields: Record<string, unknown>) {
  clock.set(at);
  const r = await beacon(s, { siteKey: site.siteKey, ...fields }, { "x-forwarded-for": ip });
  clock.set(TODAY);
  if (r.status !== 202) throw new Error(`beacon failed: ${r.status}`);
}

beforeAll(async () => {
  s = await startTestServer({ AIVIS_TRUST_PROXY: "true" }, { clock });
  u = await s.user();
  site = await createSite(s, u, "stats.example");
  // today: two ChatGPT visits (one with 2 page views), one Perplexity, one Google, one direct
  await visit(TODAY - 3 * 3600_000, "10.0.0.1", { path: "/pricing", referrer: "https://chatgpt.com/", sessionId: "s1" });
  await visit(TODAY - 3 * 3600_000 + 60_000, "10.0.0.1", { path: "/docs", referrer: "https://chatgpt.com/", sessionId: "s1" });
  await visit(TODAY - 2 * 3600_000, "10.0.0.2", { path: "/pricing", utmSource: "chatgpt.com", sessionId: "s2" });
  await visit(TODAY - 3600_000, "10.0.0.3", { path: "/blog/ai", referrer: "https://www.perplexity.ai/search", sessionId: "s3" });
  await visit(TODAY - 3600_000, "10.0.0.4", { path: "/", referrer: "https://www.google.com/", sessionId: "s4" });
  await visit(TODAY - 3600_000, "10.0.0.5", { path: "/", sessionId: "s5" });
  // engagement: ChatGPT page views 10 s + 20 s, scroll 50 and 100; Google 4 s, scroll 30
  await visit(TODAY - 3 * 3600_000 + 30_000, "10.0.0.1", { path: "/pricing", sessionId: "s1", sessionDurationMs: 10_000, scrollDepth: 50 });
  await visit(TODAY - 2 * 3600_000 + 30_000, "10.0.0.2", { path: "/pricing", sessionId: "s2", sessionDurationMs: 20_000, scrollDepth: 100 });
  await visit(TODAY - 3600_000 + 30_000, "10.0.0.4", { path: "/", sessionId: "s4", sessionDurationMs: 4_000, scrollDepth: 30 });
  // 10 days ago: one Claude visit; 40 days ago: one ChatGPT visit (outside 30 days, inside 90)
  await visit(TODAY - 10 * DAY, "10.0.0.6", { path: "/pricing", referrer: "https://claude.ai/", sessionId: "s6" });
  await visit(TODAY - 40 * DAY, "10.0.0.7", { path: "/old", referrer: "https://chatgpt.com/", sessionId: "s7" });
});
afterAll(() => s.close());

const stats = (query: string, who: TestUser = u) => s.call("GET", `/v1/ai-traffic/stats${query}`, { headers: who.headers });

describe("GET /v1/ai-traffic/stats", () => {
  test("totals, AI share, sources, landing pages, daily series and engagement over 30 days", async () => {
    const r = await stats(`?siteKey=${site.siteKey}`);
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b.message).toBe("AI traffic stats");
    expect(b.dataSource).toBe("script");
    expect(b.site).toEqual({ id: site.id, siteKey: site.siteKey, domain: "stats.example", name: "stats.example", isActive: true });
    expect(b.range).toEqual({ days: 30, from: "2026-04-21", to: "2026-05-20", timezone: "UTC" });
    expect(b.totals).toEqual({ pageViews: 7, visits: 6, visitors: 6, aiPageViews: 5, aiVisits: 4, aiVisitors: 4, aiShare: 0.6667 });
    expect(b.aiSources).toEqual([
      { source: "ChatGPT", visits: 2, pageViews: 3, visitors: 2, share: 0.5, avgEngagedMs: 15_000, avgScrollDepth: 75 },
      { source: "Claude", visits: 1, pageViews: 1, visitors: 1, share: 0.25, avgEngagedMs: 0, avgScrollDepth: null },
      { source: "Perplexity", visits: 1, pageViews: 1, visitors: 1, share: 0.25, avgEngagedMs: 0, avgScrollDepth: null },
    ]);
    expect(b.topAiLandingPages).toEqual([
      { path: "/pricing", visits: 3, sources: { ChatGPT: 2, Claude: 1 } },
      { path: "/blog/ai", visits: 1, sources: { Perplexity: 1 } },
    ]);
    expect(b.channels.find((c: { channel: string }) => c.channel === "search")).toEqual({ channel: "search", visits: 1, pageViews: 1, visitors: 1 });
    expect(b.channels.find((c: { channel: string }) => c.channel === "direct")).toEqual({ channel: "direct", visits: 1, pageViews: 1, visitors: 1 });
    expect(b.channels.map((c: { channel: string }) => c.channel)).toEqual(["ai", "search", "social", "email", "referral", "direct", "other"]);
    expect(b.daily).toHaveLength(30);
    expect(b.daily[29]).toEqual({ date: "2026-05-20", pageViews: 6, visits: 5, aiPageViews: 4, aiVisits: 3, aiSources: { ChatGPT: 2, Perplexity: 1 } });
    expect(b.daily[19]).toEqual({ date: "2026-05-10", pageViews: 1, visits: 1, aiPageViews: 1, aiVisits: 1, aiSources: { Claude: 1 } });
    expect(b.daily[0].aiSources).toEqual({});
    expect(b.daily.reduce((n: number, d: { pageViews: number }) => n + d.pageViews, 0)).toBe(7);
    // engaged time per visit: AI (10 s + 20 s) / 4 visits; other 4 s / 2 visits
    expect(b.engagement).toEqual({
      ai: { visits: 4, pageViews: 5, avgEngagedMs: 7500, avgScrollDepth: 75 },
      other: { visits: 2, pageViews: 2, avgEngagedMs: 2000, avgScrollDepth: 30 },
    });
  });

  test("days bounds the window: 1 is today only, 90 reaches the old visit, default is 30", async () => {
    const one = await stats(`?siteKey=${site.siteKey}&days=1`);
    expect(one.body.range).toMatchObject({ days: 1, from: "2026-05-20", to: "2026-05-20" });
    expect(one.body.totals.visits).toBe(5);
    expect(one.body.daily).toHaveLength(1);
    const ninety = await stats(`?siteKey=${site.siteKey}&days=90`);
    expect(ninety.body.totals).toMatchObject({ pageViews: 8, visits: 7, aiVisits: 5 });
    expect(ninety.body.aiSources[0]).toMatchObject({ source: "ChatGPT", visits: 3 });
    expect(ninety.body.daily).toHaveLength(90);
  });

  test.each(["0", "91", "-1", "abc", "2.5", ""])("days=%p → 400", async (days) => {
    const r = await stats(`?siteKey=${site.siteKey}&days=${days}`);
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("VALIDATION_FAILED");
  });

  test("source=script is accepted; an unknown source is a 400", async () => {
    expect((await stats(`?siteKey=${site.siteKey}&source=script`)).body.dataSource).toBe("script");
    expect((await stats(`?siteKey=${site.siteKey}&source=ga`)).status).toBe(400);
  });

  test("without siteKey: the workspace's first site", async () => {
    const r = await stats("");
    expect(r.status).toBe(200);
    expect(r.body.site.siteKey).toBe(site.siteKey);
  });

  test("tenant isolation: another workspace's siteKey is a 404, as is an unknown key or no site at all", async () => {
    const stranger = await s.user();
    const theirs = await createSite(s, stranger, "stranger.example");
    const r = await stats(`?siteKey=${theirs.siteKey}`);
    expect(r.status).toBe(404);
    expect(r.body.errCode).toBe("SITE_NOT_FOUND");
    expect((await stats(`?siteKey=${site.siteKey}`, stranger)).status).toBe(404);
    expect((await stats("?siteKey=aivt_nope")).status).toBe(404);
    const empty = await s.user();
    const none = await stats("", empty);
    expect(none.status).toBe(404);
    expect(none.body.errCode).toBe("SITE_NOT_FOUND");
    // a teammate sees the workspace's site
    const mate = await s.user("business", { join: u.email });
    expect((await stats(`?siteKey=${site.siteKey}`, mate)).status).toBe(200);
  });

  test("needs authentication", async () => {
    expect((await s.call("GET", `/v1/ai-traffic/stats?siteKey=${site.siteKey}`)).status).toBe(401);
  });

  test("the rollups agree with the raw rows", () => {
    const raw = s.ctx.db
      .query<{ pv: number; visits: number }, { site: string }>(
        "SELECT (SELECT count(*) FROM traffic_pageviews WHERE site_id = $site) AS pv, (SELECT count(*) FROM traffic_visits WHERE site_id = $site) AS visits",
      )
      .get({ site: site.id })!;
    const rolled = s.ctx.db
      .query<{ pv: number; visits: number }, { site: string }>("SELECT sum(pageviews) AS pv, sum(visits) AS visits FROM traffic_daily WHERE site_id = $site")
      .get({ site: site.id })!;
    expect(rolled).toEqual(raw);
    expect(raw).toEqual({ pv: 8, visits: 7 });
  });
});

describe("GET /v1/ai/generate/ai-traffic (alias)", () => {
  test("answers exactly what /v1/ai-traffic/stats answers, with the same validation", async () => {
    const a = await stats(`?siteKey=${site.siteKey}&days=7`);
    const b = await s.call("GET", `/v1/ai/generate/ai-traffic?siteKey=${site.siteKey}&days=7`, { headers: u.headers });
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect((await s.call("GET", "/v1/ai/generate/ai-traffic?days=91", { headers: u.headers })).status).toBe(400);
    expect((await s.call("GET", "/v1/ai/generate/ai-traffic")).status).toBe(401);
  });
});

describe("trafficSummary (for the assistant and the dashboard)", () => {
  test("sums every site of the workspace; zeros for a workspace without sites", async () => {
    const second = await createSite(s, u, "second.example");
    clock.set(TODAY - 60_000);
    await beacon(s, { siteKey: second.siteKey, path: "/", referrer: "https://gemini.google.com/" }, { "x-forwarded-for": "10.9.9.9" });
    clock.set(TODAY);
    const sum = trafficSummary(s.ctx.db, u.workspaceId, 30, TODAY);
    expect(sum).toEqual({
      days: 30,
      sites: 2,
      pageViews: 8,
      visits: 7,
      visitors: 7,
      aiVisits: 5,
      aiShare: 0.7143,
      topAiSources: [
        { source: "ChatGPT", visits: 2, pageViews: 3, share: 0.4 },
        { source: "Claude", visits: 1, pageViews: 1, share: 0.2 },
        { source: "Gemini", visits: 1, pageViews: 1, share: 0.2 },
        { source: "Perplexity", visits: 1, pageViews: 1, share: 0.2 },
      ],
    });
    const other = await s.user();
    expect(trafficSummary(s.ctx.db, other.workspaceId, 30, TODAY)).toEqual({
      days: 30,
      sites: 0,
      pageViews: 0,
      visits: 0,
      visitors: 0,
      aiVisits: 0,
      aiShare: 0,
      topAiSources: [],
    });
  });
});
