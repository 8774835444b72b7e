// GET /v1/ai/generate/assistant/context and buildAssistantContext: what the chat assistant knows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assistantContextText, buildAssistantContext } from "../../../src/modules/assistant";
import { principalFor, getUser } from "../../../src/modules/users/service";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { beacon, createSite } from "../traffic/support";

let fake: FakeProviders;
let s: TestServer;

beforeAll(async () => {
  fake = await startFakeProviders({
    answer: (_f, _m, _s, prompt) => (prompt.includes("gap") ? "Rivalry is the usual pick." : "Contextco is great, Rivalry too."),
  });
  s = await startTestServer({ ...fake.env, AIVIS_RATE_LIMIT_PER_MINUTE: "100000" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});

async function report(u: TestUser, body: Record<string, unknown>) {
  const r = await s.call("POST", "/v1/ai/generate/seo-site-report", { body, headers: u.headers });
  expect(r.status).toBe(202);
  for (let i = 0; i < 400; i++) {
    const j = await s.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
    if (j.body.state === "completed") return;
    if (j.body.state === "failed") throw new Error(j.body.failedReason);
    await Bun.sleep(25);
  }
}

describe("assistant context", () => {
  test("an empty workspace: no report, no traffic, no voices — and the text says so", async () => {
    const u = await s.user("business");
    const r = await s.call("GET", "/v1/ai/generate/assistant/context", { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body.context).toMatchObject({ visibility: null, recommendations: [], traffic: null, brandVoices: [], workspace: { websiteUrl: null, plan: "Business" } });
    expect(r.body.text).toContain("no report yet");
    expect(r.body.text).toContain("no site tracked");
  });

  test("latest scores with the trend, top recommendations, traffic summary and brand voices", async () => {
    const u = await s.user("business");
    await report(u, { websiteurl: "https://contextco.test", competitors: ["rivalry.test"], prompts: ["which gap tool?", "another gap?"] });
    await report(u, { refresh: true, prompts: ["which tool?", "a gap question?"] });
    const site = await createSite(s, u, "contextco.test");
    expect((await beacon(s, { siteKey: site.siteKey, path: "/", referrer: "https://chatgpt.com/", sessionId: "a" }, { origin: "https://contextco.test" })).status).toBeLessThan(300);
    const voice = await s.call("POST", "/v1/ai/generate/brand-voice/text", { body: { content: "Short sentences. Warm words.", name: "House style" }, headers: u.headers });
    expect(voice.status).toBe(201);

    const r = await s.call("GET", "/v1/ai/generate/assistant/context", { headers: u.headers });
    const c = r.body.context;
    expect(c.workspace.websiteUrl).toBe("https://contextco.test/");
    expect(c.visibility.websiteurl).toBe("https://contextco.test/");
    expect(c.visibility.score).toBeGreaterThan(0);
    expect(c.visibility.change).toBeGreaterThan(0); // 0 named in the first report, half in the second
    expect(Object.keys(c.visibility.providers).sort()).toEqual(["anthropic", "gemini", "openai"]);
    expect(c.visibility.competitors).toEqual([{ name: "Rivalry", domain: "rivalry.test", score: expect.any(Number), shareOfVoice: expect.any(Number) }]);
    expect(c.visibility.promptsWithoutSite).toEqual(["a gap question?"]);
    expect(c.recommendations.length).toBeGreaterThan(0);
    expect(c.recommendations.length).toBeLessThanOrEqual(3);
    expect(c.recommendations[0].priority).toBe(1);
    expect(c.traffic).toMatchObject({ days: 30, sites: 1, visits: 1, aiVisits: 1 });
    expect(c.brandVoices).toEqual([{ id: voice.body.data.id, name: "House style", type: "text", url: null, contentLength: 28 }]);

    const text: string = r.body.text;
    expect(text).toBe(assistantContextText(c));
    expect(text).toContain(`AI visibility score ${c.visibility.score}/100`);
    expect(text).toContain("Rivalry");
    expect(text).toContain('"a gap question?"');
    expect(text).toContain("1 from AI assistants");
    expect(text).toContain('"House style"');
    expect(text.length).toBeLessThan(2000);

    // the same object other features get in-process
    const principal = principalFor(s.ctx.db, getUser(s.ctx.db, u.userId)!, "apiKey", "test");
    expect(buildAssistantContext(s.ctx, principal).visibility!.reportId).toBe(c.visibility.reportId);
  });

  test("another workspace's data never leaks in", async () => {
    const other = await s.user("business");
    const r = await s.call("GET", "/v1/ai/generate/assistant/context", { headers: other.headers });
    expect(r.body.context.visibility).toBeNull();
    expect(r.body.context.brandVoices).toEqual([]);
  });
});
