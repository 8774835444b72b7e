// POST /v1/ai/generate/{text,chat,image,feedback} over a real server, real SDKs, fake providers.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { reserveUsage, usageSummary } from "../../../src/ai/credits";
import type { DurableJobQueue } from "../../../src/jobs";
import { claimJobs, LEASE_EXPIRED_REASON, recoverExpiredLeases } from "../../../src/jobs/queue";
import { TEXT_JOB_ATTEMPTS } from "../../../src/modules/generate/service";
import { PLANS, planOf } from "../../../src/modules/users/plans";
import { ManualClock } from "../../../src/platform/clock";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startSite, trustTestCertificate, type TestSite } from "../../support/https-site";
import { waitFor } from "../../support/jobs";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

let fake: FakeProviders;
let s: TestServer;
let site: TestSite;

beforeAll(async () => {
  trustTestCertificate();
  site = startSite({
    "/brief.txt": () => new Response("Launch date is March 3. Audience: florists.", { headers: { "content-type": "text/plain" } }),
    "/photo.png": () => new Response("png", { headers: { "content-type": "image/png" } }),
  });
  fake = await startFakeProviders();
  s = await startTestServer({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0", AIVIS_AI_TIMEOUT_MS: "1500" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
  site.close();
});
beforeEach(() => fake.reset());

const text = (u: TestUser | Record<string, string>, body: object) =>
  s.call("POST", "/v1/ai/generate/text", { headers: "headers" in u ? (u.headers as Record<string, string>) : u, body });

// read straight from the counters: GET /users/me needs a sign-in for free/startup users, and
// sign-ins are rate limited per IP (test/ai/credits.test.ts covers the endpoint)
const usage = (u: TestUser) => usageSummary(s.ctx.db, u.workspaceId, planOf(workspacePlan(u)), s.ctx.clock.now());
const workspacePlan = (u: TestUser) =>
  s.ctx.db.query<{ plan: string }, [string]>("SELECT plan FROM workspaces WHERE id = ?").get(u.workspaceId)!.plan;
const creditsUsed = async (u: TestUser) => usage(u).credits.used;
const imagesUsed = async (u: TestUser) => usage(u).images.used;

describe("POST /text inline", () => {
  test.each([
    ["gpt-4o-mini", "openai"],
    ["claude-sonnet-9", "anthropic"],
    ["gemini-2.5-flash", "gemini"],
  ])("%s → 200 {message, text, model, family} from %s, 1 credit", async (model, family) => {
    const u = await s.user("business");
    const r = await text(u, { text: "Write a tagline for a bakery", model });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Text generated", text: `Answer from ${family} ${model}: Write a tagline for a bakery`, model, family });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0].family).toBe(family as any);
    expect(await creditsUsed(u)).toBe(1);
  });

  test("systemPrompt reaches the provider as the system message", async () => {
    const u = await s.user("business");
    await text(u, { text: "hi", model: "gpt-4o", systemPrompt: "Answer in French." });
    expect(fake.calls[0].system).toBe("Answer in French.");
  });

  test("options.maxTokens reaches the provider", async () => {
    const u = await s.user("business");
    await text(u, { text: "hi", model: "claude-3-5-haiku", options: { maxTokens: 77 } });
    expect(fake.calls[0].body.max_tokens).toBe(77);
  });

  test("options.temperature reaches OpenAI and Gemini; reasoning models and Anthropic get none", async () => {
    const u = await s.user("business");
    for (const model of ["gpt-4o", "gemini-2.5-flash", "o3-mini", "claude-3"]) {
      expect((await text(u, { text: "hi", model, options: { temperature: 0.3 } })).status).toBe(200);
    }
    expect(fake.calls.map((c) => [c.model, c.body.temperature])).toEqual([
      ["gpt-4o", 0.3],
      ["gemini-2.5-flash", 0.3],
      ["o3-mini", undefined],
      ["claude-3", undefined],
    ]);
  });

  test("unknown model → 400 UNKNOWN_MODEL, nothing charged, no provider call", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "hi", model: "llama3" });
    expect([r.status, r.body.errCode]).toEqual([400, "UNKNOWN_MODEL"]);
    expect(fake.calls).toHaveLength(0);
    expect(await creditsUsed(u)).toBe(0);
  });

  test.each([
    [{ model: "gpt-4o" }, "text"],
    [{ text: "hi" }, "model"],
    [{ text: "", model: "gpt-4o" }, "text"],
    [{ text: "hi", model: "gpt-4o", options: { maxTokens: 0 } }, "options"],
  ])("invalid body %j → 400 VALIDATION_FAILED", async (body, field) => {
    const u = await s.user("business");
    const r = await text(u, body);
    expect([r.status, r.body.errCode]).toEqual([400, "VALIDATION_FAILED"]);
    expect(r.body.message).toContain(field);
  });

  test("provider 500 → 502 PROVIDER_ERROR and the credit is refunded", async () => {
    const u = await s.user("business");
    fake.failNext("anthropic", 500);
    const r = await text(u, { text: "hi", model: "claude-3" });
    expect([r.status, r.body.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    expect(Object.keys(r.body).sort()).toEqual(["errCode", "message"]);
    expect(await creditsUsed(u)).toBe(0);
  });

  test("provider timeout → 504 PROVIDER_TIMEOUT and the credit is refunded", async () => {
    const u = await s.user("business");
    fake.delayMs = 5_000;
    const r = await text(u, { text: "hi", model: "gemini-2.5-pro" });
    expect([r.status, r.body.errCode]).toEqual([504, "PROVIDER_TIMEOUT"]);
    fake.delayMs = 0;
    expect(await creditsUsed(u)).toBe(0);
  });

  test("50 concurrent requests with 10 credits left → exactly 10 × 200 and 40 × 403 CREDITS_EXHAUSTED", async () => {
    // its own server with the default provider timeout: the provider below holds its answers
    // for as long as the race takes, which a loaded machine may stretch past this file's 1.5 s
    const racing = await startTestServer({ ...fake.env, AIVIS_AI_MAX_RETRIES: "0" });
    try {
      const u = await racing.user("business");
      reserveUsage(racing.ctx.db, u.workspaceId, PLANS.business, "ai_credits", 490, racing.ctx.clock.now());
      // Every provider answer waits until all 40 refusals are back, so the 10 winners are still
      // in flight while the others are refused: all 50 are open at the same moment, and the
      // credit is taken before the provider is called (charging after the answer would let all
      // 50 through; the fallback release below only keeps such a bug from hanging the test).
      let release!: () => void;
      const allRefused = new Promise<void>((resolve) => (release = resolve));
      const fallback = setTimeout(() => release(), 20_000);
      let refused = 0;
      let usedWhileHeld = -1;
      fake.answer = async (family, model, _system, prompt) => {
        await allRefused;
        return `Answer from ${family} ${model}: ${prompt}`;
      };
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          racing.call("POST", "/v1/ai/generate/text", { headers: u.headers, body: { text: `request ${i}`, model: "gpt-4o-mini" } }).then((r) => {
            if (r.status === 403 && ++refused === 40) {
              usedWhileHeld = usageSummary(racing.ctx.db, u.workspaceId, PLANS.business, racing.ctx.clock.now()).credits.used;
              release();
            }
            return r;
          }),
        ),
      );
      clearTimeout(fallback);
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((x) => x === 200)).toHaveLength(10);
      expect(statuses.filter((x) => x === 403)).toHaveLength(40);
      expect(usedWhileHeld).toBe(500);
      for (const r of results.filter((r) => r.status === 403)) {
        expect(r.body.errCode).toBe("CREDITS_EXHAUSTED");
        expect(r.body.message).toContain("500 AI credits of the Business plan");
      }
      expect(fake.calls).toHaveLength(10);
      expect(usageSummary(racing.ctx.db, u.workspaceId, PLANS.business, racing.ctx.clock.now()).credits.used).toBe(500);
    } finally {
      await racing.close();
    }
  }, 60_000);

  test("enterprise is never refused for credits", async () => {
    const u = await s.user("enterprise");
    reserveUsage(s.ctx.db, u.workspaceId, PLANS.enterprise, "ai_credits", 100_000, s.ctx.clock.now());
    expect((await text(u, { text: "hi", model: "gpt-4o" })).status).toBe(200);
  });

  test("restricted models need a paid plan: free → 403 MODEL_RESTRICTED (no charge); startup may", async () => {
    const free = await s.user("free");
    const r = await text(await s.login(free), { text: "hi", model: "o1" });
    expect([r.status, r.body.errCode]).toEqual([403, "MODEL_RESTRICTED"]);
    expect(await creditsUsed(free)).toBe(0);
    expect((await text(await s.login(free), { text: "hi", model: "gpt-4o" })).status).toBe(200);
    const startup = await s.user("startup");
    expect((await text(await s.login(startup), { text: "hi", model: "gpt-5-mini" })).status).toBe(200);
  });

  test("file: an https text document is appended to the prompt", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "Summarise the brief", model: "gpt-4o", file: `${site.origin}/brief.txt` });
    expect(r.status).toBe(200);
    expect(fake.calls[0].user).toContain("Summarise the brief");
    expect(fake.calls[0].user).toContain("Launch date is March 3. Audience: florists.");
  });

  test("file: a non-text document → 422 FETCH_CONTENT_TYPE before anything is charged", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "x", model: "gpt-4o", file: `${site.origin}/photo.png` });
    expect([r.status, r.body.errCode]).toEqual([422, "FETCH_CONTENT_TYPE"]);
    expect(fake.calls).toHaveLength(0);
    expect(await creditsUsed(u)).toBe(0);
  });
});

describe("brand voice on /text", () => {
  async function voice(u: TestUser, content: string, headers = u.headers) {
    const r = await s.call("POST", "/v1/ai/generate/brand-voice/text", { headers, body: { content, name: "House" } });
    expect(r.status).toBeLessThan(300);
    return r.body.data.id as string;
  }

  test("brandVoiceId puts the voice's content into the system prompt as style guidance", async () => {
    const u = await s.user("business");
    const id = await voice(u, "Short sentences. Warm words. Never shout.");
    const r = await text(u, { text: "Write a welcome line", model: "claude-3", systemPrompt: "Be brief.", brandVoiceId: id });
    expect(r.status).toBe(200);
    expect(fake.calls[0].system).toContain("Be brief.");
    expect(fake.calls[0].system).toContain("Short sentences. Warm words. Never shout.");
    expect(fake.calls[0].system).toContain('brand voice "House"');
  });

  test("brandVoice: true applies the newest usable voice; without any voice nothing is added", async () => {
    const u = await s.user("business");
    await text(u, { text: "x", model: "gpt-4o", brandVoice: true });
    expect(fake.calls[0].system).toBe("");
    await voice(u, "Older voice.");
    await voice(u, "Newest voice.");
    await text(u, { text: "x", model: "gpt-4o", brandVoice: true });
    expect(fake.calls[1].system).toContain("Newest voice.");
  });

  test("another workspace's voice → 404 BRAND_VOICE_NOT_FOUND, nothing charged", async () => {
    const owner = await s.user("business");
    const id = await voice(owner, "Secret style.");
    const other = await s.user("business");
    const r = await text(other, { text: "x", model: "gpt-4o", brandVoiceId: id });
    expect([r.status, r.body.errCode]).toEqual([404, "BRAND_VOICE_NOT_FOUND"]);
    expect(fake.calls).toHaveLength(0);
    expect(await creditsUsed(other)).toBe(0);
  });
});

describe("POST /text with useWorker", () => {
  const job = (u: TestUser, id: string) => s.call("GET", `/v1/ai/generate/job/${id}`, { headers: u.headers });

  async function settled(u: TestUser, id: string) {
    let last: any;
    const deadline = Date.now() + 30_000;
    for (;;) {
      last = (await job(u, id)).body;
      if (last.state === "completed" || last.state === "failed") return last;
      if (Date.now() > deadline) throw new Error(`job ${id} stuck in ${last.state}`);
      await Bun.sleep(20);
    }
  }

  test("202 {message, jobId}; the job completes in contentQueue with the text as result", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "Draft a product blurb", model: "claude-sonnet-4", useWorker: true, systemPrompt: "Be lively." });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(["jobId", "message"]);
    const done = await settled(u, r.body.jobId);
    expect(done).toMatchObject({
      name: "ai_tool_content",
      queue: "contentQueue",
      state: "completed",
      result: { text: "Answer from anthropic claude-sonnet-4: Draft a product blurb", model: "claude-sonnet-4", family: "anthropic" },
    });
    expect(fake.calls[0].system).toBe("Be lively.");
    expect(await creditsUsed(u)).toBe(1);
  });

  test("jobType names the job; an unknown one → 400 UNKNOWN_JOB_TYPE", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "x", model: "gpt-4o", useWorker: true, jobType: "ai_tool_blog_post" });
    expect((await settled(u, r.body.jobId)).name).toBe("ai_tool_blog_post");
    const bad = await text(u, { text: "x", model: "gpt-4o", useWorker: true, jobType: "mine_bitcoin" });
    expect([bad.status, bad.body.errCode]).toEqual([400, "UNKNOWN_JOB_TYPE"]);
  });

  test("a job that fails for good is failed with our message and its credit refunded", async () => {
    const u = await s.user("business");
    fake.failNext("openai", 400, 5);
    const r = await text(u, { text: "x", model: "gpt-4o", useWorker: true });
    expect(r.status).toBe(202);
    const done = await settled(u, r.body.jobId);
    expect(done.state).toBe("failed");
    expect(done.failedReason).toContain("openai rejected the request (400)");
    expect(done.attemptsMade).toBe(1);
    expect(await creditsUsed(u)).toBe(0);
  });

  test("a provider outage on every attempt: retried, then failed, and the credit is refunded exactly once", async () => {
    const u = await s.user("business");
    reserveUsage(s.ctx.db, u.workspaceId, PLANS.business, "ai_credits", 5, s.ctx.clock.now()); // a double refund would show as 5
    fake.failNext("openai", 500, 5);
    const r = await text(u, { text: "x", model: "gpt-4o", useWorker: true });
    expect(await creditsUsed(u)).toBe(6);
    const done = await settled(u, r.body.jobId);
    expect(done).toMatchObject({ state: "failed", attemptsMade: TEXT_JOB_ATTEMPTS });
    expect(fake.callsOf("openai")).toHaveLength(TEXT_JOB_ATTEMPTS);
    expect(await creditsUsed(u)).toBe(5);
  });

  test("a job whose worker died on its last attempt (the sweeper fails it) gets its credit back", async () => {
    // no worker of its own: a "dead" worker claims the job and never finishes, on every attempt
    const clock = new ManualClock();
    const alone = await startTestServer({ ...fake.env, AIVIS_WORKER: "false", AIVIS_JOB_LEASE_MS: "1000" }, { clock });
    try {
      const u = await alone.user("business");
      const r = await alone.call("POST", "/v1/ai/generate/text", { headers: u.headers, body: { text: "x", model: "gpt-4o", useWorker: true } });
      expect(r.status).toBe(202);
      const used = () => usageSummary(alone.ctx.db, u.workspaceId, PLANS.business, clock.now()).credits.used;
      expect(used()).toBe(1);
      for (let attempt = 1; attempt <= TEXT_JOB_ATTEMPTS; attempt++) {
        expect(claimJobs(alone.ctx.db, clock.now(), "contentQueue", "dead-worker", 1000, 10).map((j) => j.id)).toEqual([r.body.jobId]);
        clock.advance(1000);
        if (attempt < TEXT_JOB_ATTEMPTS) expect(recoverExpiredLeases(alone.ctx.db, clock.now())[0].state).toBe("waiting");
      }
      expect(used()).toBe(1);
      (alone.ctx.jobs as DurableJobQueue).start(); // its sweeper fails the job for good
      const job = async () => (await alone.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers })).body;
      await waitFor("failed by the sweeper", () => used() === 0);
      expect(await job()).toMatchObject({ state: "failed", failedReason: LEASE_EXPIRED_REASON, attemptsMade: TEXT_JOB_ATTEMPTS });
      expect(fake.calls).toHaveLength(0);
    } finally {
      await alone.close();
    }
  });

  test("credits are checked when queueing: exhausted → 403 at once, nothing queued", async () => {
    const u = await s.user("business");
    reserveUsage(s.ctx.db, u.workspaceId, PLANS.business, "ai_credits", 500, s.ctx.clock.now());
    const r = await text(u, { text: "x", model: "gpt-4o", useWorker: true });
    expect([r.status, r.body.errCode]).toEqual([403, "CREDITS_EXHAUSTED"]);
  });

  test("another workspace cannot read the job", async () => {
    const u = await s.user("business");
    const r = await text(u, { text: "x", model: "gpt-4o", useWorker: true });
    const other = await s.user("business");
    expect((await job(other, r.body.jobId)).status).toBe(404);
  });
});

describe("POST /image", () => {
  const image = (headers: Record<string, string>, body: object) => s.call("POST", "/v1/ai/generate/image", { headers, body });

  test.each([
    ["dall-e-3", "1024x1792", "openai"],
    ["stability-ultra", "16:9", "stability"],
  ])("%s %s → base64 PNG, image counter +1, credits untouched", async (model, size, family) => {
    const u = await s.user("business");
    const r = await image(u.headers, { text: "a lighthouse at dusk", model, size });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: "Image generated", model, size, image: { mimeType: "image/png" } });
    expect(Buffer.from(r.body.image.b64, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(fake.calls[0]).toMatchObject({ family, size, user: "a lighthouse at dusk" });
    expect(await imagesUsed(u)).toBe(1);
    expect(await creditsUsed(u)).toBe(0);
  });

  test.each([
    ["dall-e-3", "16:9", "INVALID_IMAGE_SIZE"],
    ["dall-e-3", "512x512", "INVALID_IMAGE_SIZE"],
    ["stability-ultra", "1024x1024", "INVALID_IMAGE_SIZE"],
    ["midjourney", "1:1", "UNKNOWN_MODEL"],
  ])("%s with %s → 400 %s", async (model, size, code) => {
    const u = await s.user("business");
    const r = await image(u.headers, { text: "x", model, size });
    expect([r.status, r.body.errCode]).toEqual([400, code]);
    expect(await imagesUsed(u)).toBe(0);
  });

  test("the plan's image allowance: free trial gets 3, then 403 IMAGE_LIMIT_REACHED", async () => {
    const u = await s.user("free");
    const headers = await s.login(u);
    for (let i = 0; i < 3; i++) expect((await image(headers, { text: `x${i}`, model: "dall-e-3", size: "1024x1024" })).status).toBe(200);
    const r = await image(headers, { text: "x", model: "dall-e-3", size: "1024x1024" });
    expect([r.status, r.body.errCode]).toEqual([403, "IMAGE_LIMIT_REACHED"]);
    expect(await imagesUsed(u)).toBe(3);
  });

  test("a provider failure gives the image back", async () => {
    const u = await s.user("business");
    fake.failNext("stability", 503, 1);
    const r = await image(u.headers, { text: "x", model: "stability-ultra", size: "1:1" });
    expect([r.status, r.body.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    expect(await imagesUsed(u)).toBe(0);
  });
});

describe("POST /chat", () => {
  const chat = (u: TestUser, body: object) => s.call("POST", "/v1/ai/generate/chat", { headers: u.headers, body });

  test("without sessionId: creates a session, stores both messages as blocks, 1 credit", async () => {
    const u = await s.user("business");
    const r = await chat(u, { text: "How visible is my site?", model: "gpt-4o" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      message: "Reply generated",
      text: "Answer from openai gpt-4o: How visible is my site?",
      model: "gpt-4o",
      family: "openai",
      citations: [],
      session: { title: "How visible is my site?", model: "gpt-4o", blockCount: 2 },
    });
    expect(r.body.blocks.map((b: any) => [b.role, b.content])).toEqual([
      ["user", "How visible is my site?"],
      ["assistant", "Answer from openai gpt-4o: How visible is my site?"],
    ]);
    const stored = await s.call("GET", `/v1/ai/chat/session/${r.body.sessionId}`, { headers: u.headers });
    expect(stored.body.blocks.map((b: any) => b.id)).toEqual([r.body.blocks[1].id, r.body.blocks[0].id]);
    expect(await creditsUsed(u)).toBe(1);
  });

  test("with sessionId: earlier messages go to the model as history; a new client id creates that session", async () => {
    const u = await s.user("business");
    await chat(u, { text: "first", model: "claude-3", sessionId: "client-chosen-1" });
    fake.answer = (_f, _m, _s, prompt) => `reply to ${prompt}`;
    const r = await chat(u, { text: "second", model: "claude-3", sessionId: "client-chosen-1" });
    expect(r.body.sessionId).toBe("client-chosen-1");
    expect(fake.calls[1].messages).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "Answer from anthropic claude-3: first" },
      { role: "user", content: "second" },
    ]);
    expect(r.body.session.blockCount).toBe(4);
  });

  test("the system prompt carries the assistant brief, the caller's instructions and the page text", async () => {
    const u = await s.user("business");
    await chat(u, { text: "Improve this page", model: "gemini-2.5-flash", systemPrompt: "Use bullet points.", webpageContext: "Welcome to Rosa's Flowers", useWorkspaceContext: false });
    const system = fake.calls[0].system;
    expect(system).toContain("assistant inside aivis");
    expect(system).toContain("Use bullet points.");
    expect(system).toContain("<webpage>\nWelcome to Rosa's Flowers\n</webpage>");
  });

  test("useWorkspaceContext (default true) adds the workspace summary; false leaves it out", async () => {
    const u = await s.user("business");
    await s.call("POST", "/v1/ai/generate/brand-voice/text", { headers: u.headers, body: { content: "Plain words.", name: "Plainspoken" } });
    await chat(u, { text: "How am I doing?", model: "gpt-4o" });
    expect(fake.calls[0].system).toContain("<workspace_context>");
    expect(fake.calls[0].system).toContain("AI visibility: no report yet");
    expect(fake.calls[0].system).toContain('"Plainspoken"');
    await chat(u, { text: "And now?", model: "gpt-4o", useWorkspaceContext: false });
    expect(fake.calls[1].system).not.toContain("<workspace_context>");
  });

  test("webSearch with an OpenAI model answers with citations, stored on the reply block", async () => {
    const u = await s.user("business");
    fake.answer = () => ({ text: "Rosa's is cited on https://florists.example/best", citations: [{ url: "https://florists.example/best" }] });
    const r = await chat(u, { text: "best florist?", model: "gpt-4.1", webSearch: true });
    expect(r.status).toBe(200);
    expect(r.body.citations).toEqual(["https://florists.example/best"]);
    expect(r.body.blocks[1].citations).toEqual(["https://florists.example/best"]);
    expect(fake.calls[0]).toMatchObject({ kind: "responses", webSearch: true });
  });

  test.each(["claude-3", "gemini-2.5-flash"])("webSearch with %s → 400 WEB_SEARCH_UNSUPPORTED, nothing stored or charged", async (model) => {
    const u = await s.user("business");
    const r = await chat(u, { text: "x", model, webSearch: true });
    expect([r.status, r.body.errCode]).toEqual([400, "WEB_SEARCH_UNSUPPORTED"]);
    expect((await s.call("GET", "/v1/ai/chat/sessions", { headers: u.headers })).body.chatHistory).toEqual([]);
    expect(await creditsUsed(u)).toBe(0);
  });

  test("brandVoiceId applies that voice; another workspace's voice → 404, nothing stored or charged", async () => {
    const u = await s.user("business");
    const made = await s.call("POST", "/v1/ai/generate/brand-voice/text", { headers: u.headers, body: { content: "Dry humour. No exclamation marks.", name: "Deadpan" } });
    const r = await chat(u, { text: "Greet me", model: "claude-3", brandVoiceId: made.body.data.id, useWorkspaceContext: false });
    expect(r.status).toBe(200);
    expect(fake.calls[0].system).toContain('brand voice "Deadpan"');
    expect(fake.calls[0].system).toContain("<brand_voice>\nDry humour. No exclamation marks.\n</brand_voice>");
    const other = await s.user("business");
    const foreign = await chat(other, { text: "Greet me", model: "claude-3", brandVoiceId: made.body.data.id });
    expect([foreign.status, foreign.body.errCode]).toEqual([404, "BRAND_VOICE_NOT_FOUND"]);
    expect((await s.call("GET", "/v1/ai/chat/sessions", { headers: other.headers })).body.chatHistory).toEqual([]);
    expect(await creditsUsed(other)).toBe(0);
    expect(fake.calls).toHaveLength(1);
  });

  test("a failed provider call stores nothing and refunds", async () => {
    const u = await s.user("business");
    fake.failNext("openai", 500);
    const r = await chat(u, { text: "x", model: "gpt-4o", sessionId: "s-fail" });
    expect(r.status).toBe(502);
    expect((await s.call("GET", "/v1/ai/chat/session/s-fail", { headers: u.headers })).status).toBe(404);
    expect(await creditsUsed(u)).toBe(0);
  });

  test("a session id another user chose is theirs alone: same id, separate sessions", async () => {
    const a = await s.user("business");
    const b = await s.user("business", { join: a.email });
    await chat(a, { text: "from a", model: "gpt-4o", sessionId: "shared-id" });
    const r = await chat(b, { text: "from b", model: "gpt-4o", sessionId: "shared-id" });
    expect(fake.calls[1].messages).toEqual([{ role: "user", content: "from b" }]);
    expect(r.body.session.blockCount).toBe(2);
  });

  test("unconfigured family → 503 PROVIDER_NOT_CONFIGURED naming the variable, nothing charged", async () => {
    const bare = await startTestServer({ ...fake.env, GEMINI_API_KEY: "", GEMINI_BASE_URL: "" });
    try {
      const u = await bare.user("business");
      const r = await bare.call("POST", "/v1/ai/generate/chat", { headers: u.headers, body: { text: "x", model: "gemini-2.5-pro" } });
      expect([r.status, r.body.errCode]).toEqual([503, "PROVIDER_NOT_CONFIGURED"]);
      expect(r.body.message).toContain("GEMINI_API_KEY");
      const me = await bare.call("GET", "/v1/users/me", { headers: u.headers });
      expect(me.body.usage.credits.used).toBe(0);
    } finally {
      await bare.close();
    }
  });
});

describe("POST /feedback (generate and chat paths)", () => {
  test.each(["/v1/ai/generate/feedback", "/v1/ai/chat/feedback"])("%s stores rating, comment and what it refers to", async (path) => {
    const u = await s.user("business");
    const c = await s.call("POST", "/v1/ai/generate/chat", { headers: u.headers, body: { text: "x", model: "gpt-4o" } });
    const r = await s.call("POST", path, {
      headers: u.headers,
      body: { rating: 2, comment: "too long", sessionId: c.body.sessionId, messageId: c.body.blocks[1].id },
    });
    expect(r.status).toBe(201);
    expect(r.body.feedback).toMatchObject({ rating: 2, comment: "too long", sessionId: c.body.sessionId, messageId: c.body.blocks[1].id, source: path.includes("chat") ? "chat" : "generate" });
    const row = s.ctx.db.query<{ rating: number; comment: string }, [string]>("SELECT rating, comment FROM ai_feedback WHERE id = ?").get(r.body.feedback.id);
    expect(row).toEqual({ rating: 2, comment: "too long" });
  });

  test("feedback on a queued job and on inline text", async () => {
    const u = await s.user("business");
    const q = await text(u, { text: "x", model: "gpt-4o", useWorker: true });
    expect((await s.call("POST", "/v1/ai/generate/feedback", { headers: u.headers, body: { rating: 5, jobId: q.body.jobId } })).status).toBe(201);
    expect((await s.call("POST", "/v1/ai/generate/feedback", { headers: u.headers, body: { rating: 4, text: "the tagline", model: "gpt-4o" } })).status).toBe(201);
  });

  test.each([
    [{ rating: 6, text: "x" }, 400, "VALIDATION_FAILED"],
    [{ rating: 0, text: "x" }, 400, "VALIDATION_FAILED"],
    [{ text: "x" }, 400, "VALIDATION_FAILED"],
    [{ rating: 3 }, 400, "FEEDBACK_TARGET_REQUIRED"],
    [{ rating: 3, jobId: "nope" }, 404, "JOB_NOT_FOUND"],
    [{ rating: 3, sessionId: "nope" }, 404, "SESSION_NOT_FOUND"],
    [{ rating: 3, messageId: "nope" }, 404, "MESSAGE_NOT_FOUND"],
  ])("%j → %i %s", async (body, status, code) => {
    const u = await s.user("business");
    const r = await s.call("POST", "/v1/ai/generate/feedback", { headers: u.headers, body });
    expect([r.status, r.body.errCode]).toEqual([status, code]);
  });

  test("another user's session or message → 404", async () => {
    const a = await s.user("business");
    const c = await s.call("POST", "/v1/ai/generate/chat", { headers: a.headers, body: { text: "x", model: "gpt-4o" } });
    const b = await s.user("business", { join: a.email });
    const bySession = await s.call("POST", "/v1/ai/chat/feedback", { headers: b.headers, body: { rating: 1, sessionId: c.body.sessionId } });
    expect(bySession.status).toBe(404);
    const byMessage = await s.call("POST", "/v1/ai/chat/feedback", { headers: b.headers, body: { rating: 1, messageId: c.body.blocks[0].id } });
    expect(byMessage.status).toBe(404);
  });
});
