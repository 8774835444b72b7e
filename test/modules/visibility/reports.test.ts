// End to end: reports against the fake AI providers, over a real server and SQLite file.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { reserveUsage } from "../../../src/ai/credits";
import { planOf } from "../../../src/modules/users/plans";
import { ManualClock } from "../../../src/platform/clock";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
let fake: FakeProviders;
let s: TestServer;

// answers are scripted by a tag in the prompt: [all] names the site everywhere, [some] in half,
// [none] never; Rivalry is a competitor named everywhere
function scripted(_family: string, _model: string, _system: string, prompt: string): string {
  const n = Number(prompt.match(/q(\d+)/)?.[1] ?? 0);
  if (prompt.includes("[all]")) return `For this, Allsite (https://allsite.test) is the top pick; Rivalry is an option too.`;
  if (prompt.includes("[some]")) return n % 2 === 0 ? "Somesite is popular, and Rivalry as well." : "Most people pick Rivalry.";
  return "Most people pick Rivalry. Many like Acmeville too.";
}

const promptsFor = (tag: string, count = 4) => Array.from({ length: count }, (_, i) => `[${tag}] question q${i}`);

async function waitJob(jobId: string, headers: Record<string, string>) {
  for (let i = 0; i < 400; i++) {
    const r = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers });
    if (r.body.state === "completed" || r.body.state === "failed") return r.body;
    await Bun.sleep(25);
  }
  throw new Error(`job ${jobId} did not finish`);
}

async function runReport(u: TestUser, body: Record<string, unknown>) {
  const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body, headers: u.headers });
  expect(r.status).toBe(202);
  const job = await waitJob(r.body.jobId, u.headers);
  clock.advance(60_000);
  return { queued: r.body, job };
}

async function latest(u: TestUser) {
  return (await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: u.headers })).body;
}

beforeAll(async () => {
  fake = await startFakeProviders({ answer: scripted });
  s = await startTestServer({ ...fake.env, AIVIS_RATE_LIMIT_PER_MINUTE: "100000", AIVIS_AI_MAX_RETRIES: "0" }, { clock });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  fake.answer = scripted;
});

describe("GET /seo-site-report", () => {
  test("no report yet → exactly the empty form", async () => {
    const u = await s.user("business");
    const r = await s.call("GET", "/v1/ai/generate/seo-site-report", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "No AI visibility report found for this workspace", isEmpty: true });
  });
});

describe("report job against three providers", () => {
  test("site named in all, some and no answers: scores strictly ordered, the absent site near 0", async () => {
    const scores: Record<string, number> = {};
    for (const [tag, host] of [["all", "allsite"], ["some", "somesite"], ["none", "acme"]] as const) {
      const u = await s.user("business");
      const { job } = await runReport(u, { websiteurl: `https://www.${host}.test/`, competitors: ["rivalry.test"], prompts: promptsFor(tag) });
      expect(job.state).toBe("completed");
      expect(job.progress).toBe(100);
      const rep = await latest(u);
      expect(rep.isEmpty).toBe(false);
      scores[tag] = rep.scores.aiVisibility.score;
    }
    expect(scores.all).toBeGreaterThan(scores.some);
    expect(scores.some).toBeGreaterThan(scores.none);
    expect(scores.none).toBeLessThan(5);
    expect(scores.all).toBeGreaterThan(70);
    // 4 prompts × 3 families per report
    expect(fake.calls.length).toBe(36);
    expect(new Set(fake.calls.map((c) => c.family))).toEqual(new Set(["openai", "anthropic", "gemini"]));
  });

  test("the stored report: input, scores per provider, per-prompt results, comparison, models, recommendations, refreshMeta", async () => {
    const u = await s.user("business");
    const { queued, job } = await runReport(u, { websiteurl: "https://somesite.test", competitors: ["https://rivalry.test", "Nobody Inc"], prompts: promptsFor("some") });
    expect(typeof queued.message).toBe("string");
    expect(job.result.reportId).toBe(queued.reportId);
    const rep = await latest(u);
    expect(rep.message).toBe("AI visibility report found");
    expect(rep.input).toEqual({ websiteurl: "https://somesite.test/", competitors: ["https://rivalry.test", "Nobody Inc"], prompts: promptsFor("some") });
    const { aiVisibility } = rep.scores;
    expect(typeof aiVisibility.interpretation).toBe("string");
    for (const f of ["openai", "anthropic", "gemini"]) {
      expect(aiVisibility.providers[f]).toMatchObject({ answered: 4, failed: 0, mentionRate: 0.5 });
    }
    expect(rep.report.prompts).toHaveLength(4);
    const first = rep.report.prompts[0];
    expect(first.prompt).toBe("[some] question q0");
    expect(first.siteMentionedBy.sort()).toEqual(["anthropic", "gemini", "openai"]);
    expect(first.results[0]).toMatchObject({ status: "answered", siteMentioned: true, sitePosition: 1, error: null });
    expect(first.results[0].excerpt).toContain("Somesite");
    expect(first.results[0].mentions.map((m: any) => m.name)).toEqual(["Somesite", "Rivalry"]);
    const rivalry = rep.report.comparison.find((e: any) => e.domain === "rivalry.test");
    const self = rep.report.comparison.find((e: any) => e.isSelf);
    expect(rivalry.mentionRate).toBe(1);
    expect(rivalry.score).toBeGreaterThan(self.score);
    expect(self.score).toBe(aiVisibility.score);
    expect(rep.report.comparison.find((e: any) => e.name === "Nobody Inc").mentions).toBe(0);
    expect(rep.report.models.map((m: any) => m.status)).toEqual(["ok", "ok", "ok"]);
    expect(rep.report.totals).toEqual({ prompts: 4, calls: 12, answered: 12, failed: 0 });
    const ids = rep.recommendations.map((r: any) => r.id);
    expect(ids).toContain("content-gap");
    expect(ids).toContain("competitor-ahead");
    for (const r of rep.recommendations) {
      expect(["easy", "medium", "hard"]).toContain(r.difficulty);
      expect(["high", "medium", "low"]).toContain(r.impact);
      expect(typeof r.evidence).toBe("object");
    }
    expect(rep.recommendations.find((r: any) => r.id === "content-gap").evidence.prompts).toEqual(["[some] question q1", "[some] question q3"]);
    expect(rep.refreshMeta).toMatchObject({ count: 0, usedLast24h: 0, limitPer24h: 10, remaining: 10 });
    // the traffic feature creates its site from this
    const ws = s.ctx.db.query<{ website_url: string }, [string]>("SELECT website_url FROM workspaces WHERE id = ?").get(u.workspaceId);
    expect(ws!.website_url).toBe("https://somesite.test/");
  });

  test("a failing provider is null, not 0, and the report still completes", async () => {
    const u = await s.user("business");
    fake.failNext("anthropic", 500, 1000);
    const { job } = await runReport(u, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 2) });
    expect(job.state).toBe("completed");
    const rep = await latest(u);
    expect(rep.scores.aiVisibility.providers.anthropic).toBeNull();
    expect(rep.scores.aiVisibility.providers.openai.score).toBeGreaterThan(50);
    expect(rep.report.models.find((m: any) => m.family === "anthropic").status).toBe("failed");
    const failed = rep.report.prompts[0].results.find((r: any) => r.family === "anthropic");
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/PROVIDER/);
  });

  test("progress moves as answers arrive", async () => {
    const u = await s.user("business");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // q0 is answered at once by all three providers, q1 waits for the gate
    fake.answer = async (family, model, system, prompt) => {
      if (prompt.includes("q1")) await gate;
      return scripted(family, model, system, prompt);
    };
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test", prompts: promptsFor("all", 2) }, headers: u.headers });
    let midway: any;
    try {
      for (let i = 0; i < 400; i++) {
        midway = (await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers })).body;
        if (midway.progress === 53) break;
        await Bun.sleep(25);
      }
    } finally {
      release();
    }
    // 10 before asking, then 85 × 3 of 6 answers
    expect(midway).toMatchObject({ state: "active", progress: 53 });
    const done = await waitJob(r.body.jobId, u.headers);
    expect(done).toMatchObject({ state: "completed", progress: 100 });
  });

  test("an unconfigured provider is not asked and shows as null and not_configured, never as a 0", async () => {
    const { GEMINI_API_KEY: _key, GEMINI_BASE_URL: _url, ...twoFamilies } = fake.env;
    const partial = await startTestServer({ ...twoFamilies, AIVIS_RATE_LIMIT_PER_MINUTE: "100000", AIVIS_AI_MAX_RETRIES: "0" }, { clock });
    try {
      const u = await partial.user("business");
      const r = await partial.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test", prompts: promptsFor("all", 2) }, headers: u.headers });
      expect(r.status).toBe(202);
      for (let i = 0; i < 400; i++) {
        const j = await partial.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
        if (j.body.state === "completed") break;
        await Bun.sleep(25);
      }
      const rep = (await partial.call("GET", "/v1/ai/generate/seo-site-report", { headers: u.headers })).body;
      expect(rep.scores.aiVisibility.providers.gemini).toBeNull();
      expect(rep.report.models.find((m: any) => m.family === "gemini")).toMatchObject({ status: "not_configured", answered: 0, failed: 0 });
      expect(fake.calls.some((c) => c.family === "gemini")).toBe(false);
      expect(rep.report.totals.calls).toBe(4);
      // the same answers from all three families score the same: the missing one is not a 0
      const full = await s.user("business");
      await runReport(full, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 2) });
      expect(rep.scores.aiVisibility.score).toBe((await latest(full)).scores.aiVisibility.score);
    } finally {
      await partial.close();
    }
  });

  test("prompts the job wrote are kept for its retry, so the retry asks (and is charged for) the same ones", async () => {
    const u = await s.user("business");
    fake.answer = (_f, _m, system) =>
      system.includes("JSON only") ? JSON.stringify({ competitors: [], prompts: ["Model question one?", "Model question two?", "Model question three?"] }) : "Allsite is great.";
    // attempt 1: the suggestion call and every answer fail, so it falls back to the 2 generic prompts
    fake.failNext("openai", 500, 3);
    fake.failNext("anthropic", 500, 2);
    fake.failNext("gemini", 500, 2);
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test" }, headers: u.headers });
    expect(r.status).toBe(202);
    let job: any;
    for (let i = 0; i < 400; i++) {
      job = (await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers })).body;
      if (job.state === "completed" || job.state === "failed") break;
      if (job.state === "delayed") clock.advance(31_000);
      await Bun.sleep(25);
    }
    expect(job.state).toBe("completed");
    expect(job.attemptsMade).toBe(2);
    const rep = await latest(u);
    expect(rep.input.prompts).toEqual(["What are the best alternatives to allsite.test?", "Is allsite.test a good choice, and what are its competitors?"]);
    expect(rep.report.totals).toMatchObject({ prompts: 2, calls: 6, answered: 6 });
    expect(usedCredits(u)).toBe(2);
  });

  test("no answer at all → the job fails, the credits come back and there is still no report", async () => {
    const u = await s.user("business");
    for (const f of ["openai", "anthropic", "gemini"] as const) fake.failNext(f, 500, 1000);
    const before = usedCredits(u);
    const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test", prompts: ["[all] q1"] }, headers: u.headers });
    expect(r.status).toBe(202);
    expect(usedCredits(u)).toBe(before + 1);
    // first attempt fails, the retry waits REPORT_JOB_BACKOFF_MS: move the clock past it
    for (let i = 0; i < 200; i++) {
      const j = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
      if (j.body.state === "failed") break;
      if (j.body.state === "delayed") clock.advance(31_000);
      await Bun.sleep(25);
    }
    const job = await waitJob(r.body.jobId, u.headers);
    expect(job.state).toBe("failed");
    expect(job.attemptsMade).toBe(2);
    expect(job.failedReason).toMatch(/no AI provider answered/);
    expect(usedCredits(u)).toBe(before);
    expect((await latest(u)).isEmpty).toBe(true);
  });
});

function usedCredits(u: TestUser): number {
  return (
    s.ctx.db
      .query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE workspace_id = ? AND kind = 'ai_credits'")
      .get(u.workspaceId)?.used ?? 0
  );
}

describe("SPEC 4.1 errors", () => {
  const post = (u: TestUser | Record<string, string>, body: unknown) =>
    s.call("POST", "/v1/ai/generate/seo-site-report", { body, headers: "headers" in u ? (u as TestUser).headers : (u as Record<string, string>) });

  test("400 INVALID_URL: missing, http:// and not a URL", async () => {
    const u = await s.user("business");
    for (const body of [{}, { websiteurl: "http://acme.test" }, { websiteurl: "not a url" }, { competitors: ["a.test"] }]) {
      const r = await post(u, body);
      expect(r.status).toBe(400);
      expect(r.body.errCode).toBe("INVALID_URL");
    }
  });

  test("400 TOO_MANY_PROMPTS over the plan's cap; duplicates are not counted twice", async () => {
    const u = await s.user("business");
    const cap = planOf("business").promptsPerReport;
    const tooMany = Array.from({ length: cap + 1 }, (_, i) => `prompt number ${i}`);
    const r = await post(u, { websiteurl: "https://acme.test", prompts: tooMany });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("TOO_MANY_PROMPTS");
    const dupes = [...tooMany.slice(0, cap), "PROMPT number 0  "];
    const ok = await post(u, { websiteurl: "https://acme.test", prompts: dupes });
    expect(ok.status).toBe(202);
    await waitJob(ok.body.jobId, u.headers);
  });

  test("400 NO_PRIOR_REPORT for a refresh without a report", async () => {
    const u = await s.user("business");
    const r = await post(u, { refresh: true });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("NO_PRIOR_REPORT");
  });

  test("free plan: one audit (403 FREE_AUDIT_USED after it), no refresh (403 REFRESH_NOT_ALLOWED)", async () => {
    const u = await s.user("free");
    const session = await s.login(u);
    const first = await post(session, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 2) });
    expect(first.status).toBe(202);
    await waitJob(first.body.jobId, session);
    const second = await post(session, { websiteurl: "https://allsite.test" });
    expect(second.status).toBe(403);
    expect(second.body.errCode).toBe("FREE_AUDIT_USED");
    const refresh = await post(session, { refresh: true });
    expect(refresh.status).toBe(403);
    expect(refresh.body.errCode).toBe("REFRESH_NOT_ALLOWED");
    // free accounts have no API access at all
    expect((await post(u, { websiteurl: "https://allsite.test" })).status).toBe(403);
  });

  test("403 CREDITS_EXHAUSTED when the prompts cost more than what is left; nothing is queued", async () => {
    const u = await s.user("business");
    reserveUsage(s.ctx.db, u.workspaceId, planOf("business"), "ai_credits", 498, clock.now());
    const r = await post(u, { websiteurl: "https://acme.test", prompts: ["a question", "another one", "a third one"] });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("CREDITS_EXHAUSTED");
    expect((await post(u, { websiteurl: "https://acme.test", prompts: ["one question", "two questions"] })).status).toBe(202);
    expect(usedCredits(u)).toBe(500);
  });

  test("500 QUEUE_FAILED when the queue refuses; the credits are returned", async () => {
    const u = await s.user("business");
    const enqueue = s.ctx.jobs.enqueue;
    s.ctx.jobs.enqueue = () => {
      throw new Error("disk full");
    };
    try {
      const r = await post(u, { websiteurl: "https://acme.test", prompts: ["a question"] });
      expect(r.status).toBe(500);
      expect(r.body.errCode).toBe("QUEUE_FAILED");
    } finally {
      s.ctx.jobs.enqueue = enqueue;
    }
    expect(usedCredits(u)).toBe(0);
    // the failed attempt does not count as the free audit or a report
    expect((await latest(u)).isEmpty).toBe(true);
  });

  test("400 INVALID_COMPETITOR for a competitor that is neither a URL, a domain nor a name; the same rules on a refresh", async () => {
    const u = await s.user("business");
    for (const c of ["***", "https://", "https://127.0.0.1", "x".repeat(81)]) {
      const r = await post(u, { websiteurl: "https://acme.test", competitors: [c] });
      expect(r.status).toBe(400);
      expect(r.body.errCode).toBe("INVALID_COMPETITOR");
    }
    await runReport(u, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 1) });
    const cap = planOf("business").promptsPerReport;
    const overrides: [Record<string, unknown>, string][] = [
      [{ refresh: true, websiteurl: "http://allsite.test" }, "INVALID_URL"],
      [{ refresh: true, prompts: Array.from({ length: cap + 1 }, (_, i) => `prompt ${i}`) }, "TOO_MANY_PROMPTS"],
      [{ refresh: true, competitors: ["***"] }, "INVALID_COMPETITOR"],
    ];
    for (const [body, errCode] of overrides) {
      const r = await post(u, body);
      expect(r.status).toBe(400);
      expect(r.body.errCode).toBe(errCode);
    }
    reserveUsage(s.ctx.db, u.workspaceId, planOf("business"), "ai_credits", 500 - usedCredits(u), clock.now());
    const broke = await post(u, { refresh: true });
    expect(broke.status).toBe(403);
    expect(broke.body.errCode).toBe("CREDITS_EXHAUSTED");
  });

  test("503 NO_PROVIDER_CONFIGURED when no family of AIVIS_REPORT_MODELS has a key or base URL", async () => {
    const bare = await startTestServer({}, { clock });
    try {
      const u = await bare.user("business");
      const r = await bare.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://acme.test" }, headers: u.headers });
      expect(r.status).toBe(503);
      expect(r.body.errCode).toBe("NO_PROVIDER_CONFIGURED");
      expect(r.body.message).toContain("OPENAI_API_KEY");
    } finally {
      await bare.close();
    }
  });

  test("schema bounds: too many competitors, a non-string prompt", async () => {
    const u = await s.user("business");
    const many = Array.from({ length: 11 }, (_, i) => `c${i}.test`);
    expect((await post(u, { websiteurl: "https://acme.test", competitors: many })).body.errCode).toBe("VALIDATION_FAILED");
    expect((await post(u, { websiteurl: "https://acme.test", prompts: [42] })).body.errCode).toBe("VALIDATION_FAILED");
  });
});

describe("refresh", () => {
  test("reuses the previous input, counts refreshes, honours overrides, and stops at the 24 h allowance (429 + retry-after)", async () => {
    const u = await s.user("business");
    await runReport(u, { websiteurl: "https://allsite.test", competitors: ["rivalry.test"], prompts: promptsFor("all", 2) });
    const original = await latest(u);

    const { job } = await runReport(u, { refresh: true });
    expect(job.state).toBe("completed");
    const refreshed = await latest(u);
    expect(refreshed.reportId).not.toBe(original.reportId);
    expect(refreshed.input).toEqual(original.input);
    expect(refreshed.refreshMeta).toMatchObject({ count: 1, usedLast24h: 1, remaining: 9 });

    await runReport(u, { refresh: true, prompts: ["[some] question q0"] });
    const overridden = await latest(u);
    expect(overridden.input.prompts).toEqual(["[some] question q0"]);
    expect(overridden.input.competitors).toEqual(["rivalry.test"]);
    expect(overridden.refreshMeta.count).toBe(2);

    const limit = planOf("business").refreshesPer24h;
    for (let i = 2; i < limit; i++) await runReport(u, { refresh: true });
    const blocked = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: u.headers });
    expect(blocked.status).toBe(429);
    expect(blocked.body.errCode).toBe("REFRESH_LIMIT_REACHED");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // a new report is not a refresh and is still allowed on a paid plan
    expect((await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://allsite.test", prompts: ["[all] q1"] }, headers: u.headers })).status).toBe(202);
    clock.advance(retryAfter * 1000);
    const again = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: u.headers });
    expect(again.status).toBe(202);
    await waitJob(again.body.jobId, u.headers);
  });

  test("two refreshes requested before the first finishes count 1 and 2", async () => {
    const u = await s.user("business");
    await runReport(u, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 1) });
    fake.delayMs = 300; // the first refresh is still running when the second is requested
    const first = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: u.headers });
    clock.advance(1_000);
    const second = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { refresh: true }, headers: u.headers });
    expect([first.status, second.status]).toEqual([202, 202]);
    await waitJob(first.body.jobId, u.headers);
    await waitJob(second.body.jobId, u.headers);
    const rep = await latest(u);
    expect(rep.reportId).toBe(second.body.reportId);
    expect(rep.refreshMeta).toMatchObject({ count: 2, usedLast24h: 2 });
  });

  test("sort=asc returns the first report, desc (default) the latest", async () => {
    const u = await s.user("business");
    await runReport(u, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 1) });
    await runReport(u, { websiteurl: "https://somesite.test", prompts: promptsFor("some", 1) });
    const asc = (await s.call("GET", "/v1/ai/generate/seo-site-report?sort=asc", { headers: u.headers })).body;
    const desc = (await s.call("GET", "/v1/ai/generate/seo-site-report?sort=desc", { headers: u.headers })).body;
    expect(asc.input.websiteurl).toBe("https://allsite.test/");
    expect(desc.input.websiteurl).toBe("https://somesite.test/");
    expect((await s.call("GET", "/v1/ai/generate/seo-site-report?sort=sideways", { headers: u.headers })).status).toBe(400);
  });
});

describe("history", () => {
  test("chronological points with timestamp = time, overall, self and each competitor's score", async () => {
    const u = await s.user("business");
    const empty = await s.call("GET", "/v1/ai/generate/seo-site-report/history", { headers: u.headers });
    expect(empty.body.points).toEqual([]);
    await runReport(u, { websiteurl: "https://somesite.test", competitors: ["rivalry.test"], prompts: promptsFor("none", 2) });
    await runReport(u, { refresh: true, prompts: promptsFor("some", 2) });
    await runReport(u, { refresh: true, prompts: promptsFor("all", 2).map((p) => p.replace("[all]", "[some]").replace("q1", "q2")) });
    const r = await s.call("GET", "/v1/ai/generate/seo-site-report/history", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");
    const points = r.body.points;
    expect(points).toHaveLength(3);
    for (const p of points) {
      expect(p.time).toBe(p.timestamp);
      expect(new Date(p.timestamp).toISOString()).toBe(p.timestamp);
      expect(p.self).toBe(p.overall);
      expect(p.competitors).toEqual([{ name: "Rivalry", domain: "rivalry.test", score: expect.any(Number), shareOfVoice: expect.any(Number) }]);
    }
    expect(points[0].timestamp < points[1].timestamp && points[1].timestamp < points[2].timestamp).toBe(true);
    expect(points[0].overall).toBe(0);
    expect(points[2].overall).toBeGreaterThan(points[1].overall);
    const limited = await s.call("GET", "/v1/ai/generate/seo-site-report/history?limit=2", { headers: u.headers });
    expect(limited.body.points.map((p: any) => p.reportId)).toEqual(points.slice(1).map((p: any) => p.reportId));
  });

  test("another workspace's reports are invisible", async () => {
    const a = await s.user("business");
    const b = await s.user("business");
    const { queued } = await runReport(a, { websiteurl: "https://allsite.test", prompts: promptsFor("all", 1) });
    expect((await latest(b)).isEmpty).toBe(true);
    expect((await s.call("GET", "/v1/ai/generate/seo-site-report/history", { headers: b.headers })).body.points).toEqual([]);
    expect((await s.call("GET", `/v1/ai/generate/job/${queued.jobId}`, { headers: b.headers })).status).toBe(404);
  });
});
