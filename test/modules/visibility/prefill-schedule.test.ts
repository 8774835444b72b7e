// Prefill suggestions (a local https site + fake model) and the scheduled refresh.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Cron } from "croner";
import { reserveUsage } from "../../../src/ai/credits";
import { planOf } from "../../../src/modules/users/plans";
import { exceedsDailyAllowance, runScheduledRefresh } from "../../../src/modules/visibility/schedule";
import { parseSuggestions } from "../../../src/modules/visibility/suggestions";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { html, startSite, type TestSite, trustTestCertificate } from "../../support/https-site";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

let fake: FakeProviders;
let s: TestServer;
let site: TestSite;

const suggestionReply = JSON.stringify({
  competitors: ["https://rival-one.test", "rival-two.test", "Rival One", "rival-two.test", "https://allsite.test/other"],
  prompts: ["Which analytics tool is best for small teams?", "which analytics tool is best for small teams", "How do I measure product usage?"],
});

beforeAll(async () => {
  trustTestCertificate();
  site = startSite({
    "/": () => html(`<!doctype html><html><head><title>Allsite Analytics | Home</title>
      <meta name="description" content="Product analytics for small teams. Fast and private."></head>
      <body><main><h1>Allsite</h1><p>Analytics.</p></main></body></html>`),
  });
  fake = await startFakeProviders();
  s = await startTestServer({ ...fake.env, AIVIS_RATE_LIMIT_PER_MINUTE: "100000", AIVIS_AI_MAX_RETRIES: "0" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
  site.close();
});
beforeEach(() => {
  fake.reset();
  fake.answer = (_f, _m, system) => (system.includes("JSON only") ? suggestionReply : "Allsite is a good choice.");
});

const prefill = (u: TestUser, body: unknown) => s.call("POST", "/v1/ai/generate/seo-site-report/prefill", { body, headers: u.headers });

describe("POST /seo-site-report/prefill", () => {
  test("fetches the site, asks the model, merges with the seeds, dedupes and reports the plan's cap", async () => {
    const u = await s.user("business");
    const r = await prefill(u, { websiteurl: `${site.origin}/`, competitors: ["seeded.test"], prompts: ["My own question?"] });
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");
    expect(r.body.promptLimit).toBe(planOf("business").promptsPerReport);
    expect(r.body.input).toEqual({ websiteurl: `${site.origin}/`, competitors: ["seeded.test"], prompts: ["My own question?"] });
    expect(r.body.suggestions.competitors).toEqual(["https://rival-one.test", "rival-two.test", "Rival One", "https://allsite.test/other"]);
    expect(r.body.suggestions.prompts).toEqual(["Which analytics tool is best for small teams?", "How do I measure product usage?"]);
    expect(r.body.prefill.competitors[0]).toBe("seeded.test");
    expect(r.body.prefill.prompts).toEqual(["My own question?", "Which analytics tool is best for small teams?", "How do I measure product usage?"]);
    expect(r.body.site).toEqual({ title: "Allsite Analytics | Home", description: "Product analytics for small teams. Fast and private." });
    // the model saw what the page says
    const call = fake.calls.find((c) => c.system.includes("JSON only"))!;
    expect(call.user).toContain("Allsite Analytics | Home");
    expect(call.user).toContain("Product analytics for small teams");
    expect(site.hits).toContain("/");
  });

  test("prompts are capped to the plan's limit", async () => {
    const u = await s.user("business");
    const many = Array.from({ length: 40 }, (_, i) => `Question number ${i}?`);
    fake.answer = () => JSON.stringify({ competitors: [], prompts: many });
    const r = await prefill(u, { websiteurl: `${site.origin}/` });
    expect(r.body.prefill.prompts).toHaveLength(planOf("business").promptsPerReport);
  });

  test("an unusable model reply falls back to generic prompts", async () => {
    const u = await s.user("business");
    fake.answer = () => "Sorry, I cannot help with that.";
    const r = await prefill(u, { websiteurl: `${site.origin}/` });
    expect(r.status).toBe(200);
    expect(r.body.suggestions.competitors).toEqual([]);
    expect(r.body.prefill.prompts.length).toBeGreaterThan(0);
    expect(r.body.prefill.prompts[0]).toContain("product analytics for small teams");
  });

  test("400 INVALID_URL for http://, 400 TOO_MANY_PROMPTS for seeds over the cap", async () => {
    const u = await s.user("business");
    expect((await prefill(u, { websiteurl: "http://allsite.test" })).body.errCode).toBe("INVALID_URL");
    const seeds = Array.from({ length: planOf("business").promptsPerReport + 1 }, (_, i) => `seed ${i}`);
    const r = await prefill(u, { websiteurl: `${site.origin}/`, prompts: seeds });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("TOO_MANY_PROMPTS");
  });

  test("asking the model costs 1 credit, given back when the call fails; no credits left → 403", async () => {
    const u = await s.user("business");
    const used = () =>
      s.ctx.db.query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE workspace_id = ?").get(u.workspaceId)!.used;
    expect((await prefill(u, { websiteurl: `${site.origin}/` })).body.source).toBe("model");
    expect(used()).toBe(1);
    fake.failNext("openai", 500, 1);
    const failed = await prefill(u, { websiteurl: `${site.origin}/` });
    expect(failed.status).toBe(200);
    expect(failed.body.source).toBe("fallback");
    expect(used()).toBe(1);
    reserveUsage(s.ctx.db, u.workspaceId, planOf("business"), "ai_credits", 500 - used(), Date.now());
    const broke = await prefill(u, { websiteurl: `${site.origin}/` });
    expect(broke.status).toBe(403);
    expect(broke.body.errCode).toBe("CREDITS_EXHAUSTED");
  });

  test("the site is fetched with the safe fetch: a loopback address is refused (nothing requested), prefill still answers", async () => {
    const strict = await startTestServer({ ...fake.env, AIVIS_FETCH_ALLOW_PRIVATE: "false" });
    try {
      const u = await strict.user("business");
      site.route("/private", () => html("<title>Private Page</title>"));
      const r = await strict.call("POST", "/v1/ai/generate/seo-site-report/prefill", { body: { websiteurl: `https://localhost:${site.port}/private` }, headers: u.headers });
      expect(r.status).toBe(200);
      expect(r.body.site).toEqual({ title: null, description: null });
      expect(site.hits).not.toContain("/private");
    } finally {
      await strict.close();
    }
  });

  test("parseSuggestions copes with fences, prose and heading lists", () => {
    expect(parseSuggestions('Sure!\n```json\n{"competitors":["a.com"],"prompts":["q?"]}\n```')).toEqual({ competitors: ["a.com"], prompts: ["q?"] });
    expect(parseSuggestions("Competitors:\n- a.com\n- **B Corp**\n\nPrompts:\n1. first?\n2) second?")).toEqual({
      competitors: ["a.com", "B Corp"],
      prompts: ["first?", "second?"],
    });
    expect(parseSuggestions('{"competitors": "oops", "prompts": [1, "ok?"]}')).toEqual({ competitors: [], prompts: ["ok?"] });
  });
});

describe("a report without prompts", () => {
  test("the job writes them (model first, generic ones fill up), stores them, and charges only what it asked", async () => {
    const u = await s.user("business");
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test" }, headers: u.headers });
    expect(r.status).toBe(202);
    const credits = () =>
      s.ctx.db.query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE workspace_id = ?").get(u.workspaceId)!.used;
    expect(credits()).toBe(5);
    for (let i = 0; i < 400; i++) {
      const j = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
      if (j.body.state === "completed") break;
      await Bun.sleep(25);
    }
    const rep = (await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: u.headers })).body;
    // two from the model, two generic ones about the domain (the site itself could not be fetched)
    expect(rep.input.prompts).toEqual([
      "Which analytics tool is best for small teams?",
      "How do I measure product usage?",
      "What are the best alternatives to allsite.test?",
      "Is allsite.test a good choice, and what are its competitors?",
    ]);
    expect(rep.report.totals.calls).toBe(12);
    expect(credits()).toBe(4);
  });
});

describe("the report job fetches the site", () => {
  test("the brand in the page title becomes the site's name", async () => {
    site.route("/brand", () => html("<!doctype html><html><head><title>Localhost Metrics — Analytics for teams</title></head><body><p>Hi.</p></body></html>"));
    fake.answer = () => "Try Localhost Metrics first; it is a fine pick.";
    const u = await s.user("business");
    const url = `https://localhost:${site.port}/brand`;
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: url, prompts: ["best analytics?"] }, headers: u.headers });
    expect(r.status).toBe(202);
    for (let i = 0; i < 400; i++) {
      const j = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
      if (j.body.state === "completed") break;
      await Bun.sleep(25);
    }
    const rep = (await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: u.headers })).body;
    expect(site.hits).toContain("/brand");
    expect(rep.report.site).toMatchObject({ name: "Localhost Metrics", names: ["localhost", "Localhost Metrics"] });
    expect(rep.report.prompts[0].results[0].mentions.map((m: any) => m.name)).toEqual(["Localhost Metrics"]);
  });
});

describe("scheduled refresh", () => {
  const put = (u: TestUser, body: unknown) => s.call("PUT", "/v1/ai/generate/seo-site-report/schedule", { body, headers: u.headers });

  async function firstReport(u: TestUser) {
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test", prompts: ["q1"] }, headers: u.headers });
    for (let i = 0; i < 400; i++) {
      const j = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
      if (j.body.state === "completed") return;
      await Bun.sleep(25);
    }
    throw new Error("first report did not finish");
  }

  test("validation: bad cron, bad zone, more often than the plan allows, no report yet", async () => {
    const u = await s.user("business");
    expect((await put(u, { cron: "every day at 6" })).body.errCode).toBe("INVALID_CRON");
    expect((await put(u, { cron: "0 6 * * *", timezone: "Mars/Olympus" })).body.errCode).toBe("INVALID_TIMEZONE");
    expect((await put(u, { cron: "*/5 * * * *" })).body.errCode).toBe("SCHEDULE_TOO_FREQUENT");
    const none = await put(u, { cron: "0 6 * * *" });
    expect(none.status).toBe(400);
    expect(none.body.errCode).toBe("NO_PRIOR_REPORT");
  });

  test("set, read, run (a normal refresh), remove", async () => {
    const u = await s.user("business");
    await firstReport(u);
    expect((await s.call("GET", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers })).body.schedule).toBeNull();
    const set = await put(u, { cron: "0 6 * * *", timezone: "Europe/Berlin" });
    expect(set.status).toBe(200);
    expect(set.body.schedule).toMatchObject({ cron: "0 6 * * *", timezone: "Europe/Berlin", enabled: true, lastRunAt: null });
    expect(Date.parse(set.body.schedule.nextRunAt)).toBeGreaterThan(Date.now());

    const outcome = runScheduledRefresh(s.ctx, u.workspaceId);
    expect("jobId" in outcome).toBe(true);
    const row = s.ctx.db
      .query<{ trigger: string; refresh_count: number }, [string]>("SELECT trigger, refresh_count FROM visibility_reports WHERE job_id = ?")
      .get((outcome as { jobId: string }).jobId);
    expect(row).toEqual({ trigger: "scheduled", refresh_count: 1 });
    const read = await s.call("GET", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers });
    expect(read.body.schedule.lastRunAt).not.toBeNull();
    expect(read.body.schedule.lastError).toBeNull();

    expect((await s.call("DELETE", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers })).status).toBe(200);
    expect((await s.call("DELETE", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers })).body.errCode).toBe("SCHEDULE_NOT_FOUND");
  });

  test("a run past the allowance is skipped and recorded, not thrown", async () => {
    const u = await s.user("business");
    await firstReport(u);
    await put(u, { cron: "0 6 * * *" });
    const limit = planOf("business").refreshesPer24h;
    for (let i = 0; i < limit; i++) expect("jobId" in runScheduledRefresh(s.ctx, u.workspaceId)).toBe(true);
    expect(runScheduledRefresh(s.ctx, u.workspaceId)).toEqual({ errCode: "REFRESH_LIMIT_REACHED" });
    const read = await s.call("GET", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers });
    expect(read.body.schedule.lastError).toMatch(/^REFRESH_LIMIT_REACHED/);
  });

  test("the free plan cannot schedule", async () => {
    const u = await s.user("free");
    const session = await s.login(u);
    const r = await s.call("PUT", "/v1/ai/generate/seo-site-report/schedule", { body: { cron: "0 6 * * *" }, headers: session });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("REFRESH_NOT_ALLOWED");
  });

  test("exceedsDailyAllowance counts runs in 24 hours", () => {
    const from = new Date(Date.UTC(2026, 0, 1));
    expect(exceedsDailyAllowance(new Cron("0 */6 * * *", { paused: true }), 3, from)).toBe(true);
    expect(exceedsDailyAllowance(new Cron("0 */6 * * *", { paused: true }), 4, from)).toBe(false);
    expect(exceedsDailyAllowance(new Cron("0 6 * * 1", { paused: true }), 1, from)).toBe(false);
  });
});
