// /v1/ai/chat sessions: paging (10 sessions, 3 blocks), client-chosen ids, deletion on both paths,
// isolation between users, and the workspace's fine-tuning job at (fake) OpenAI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/platform/clock";
import { type FakeFineTuningJob, type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const clock = new ManualClock(Date.parse("2026-05-01T10:00:00Z"));
let fake: FakeProviders;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeProviders();
  s = await startTestServer({ ...fake.env }, { clock });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});

const get = (u: TestUser, path: string) => s.call("GET", `/v1/ai/chat${path}`, { headers: u.headers });
const createSession = (u: TestUser, body?: object) => s.call("POST", "/v1/ai/chat/session", { headers: u.headers, body: body ?? {} });
async function say(u: TestUser, sessionId: string, text: string) {
  clock.advance(1000);
  const r = await s.call("POST", "/v1/ai/generate/chat", { headers: u.headers, body: { text, model: "gpt-4o", sessionId } });
  expect(r.status).toBe(200);
}

describe("create", () => {
  test("a client-chosen sessionId is kept → 201 {message, sessionId, session}", async () => {
    const u = await s.user();
    const r = await createSession(u, { sessionId: "5f0c2a9e-1111-4d2b-9c51-aaaaaaaaaaaa" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      message: "Session created",
      sessionId: "5f0c2a9e-1111-4d2b-9c51-aaaaaaaaaaaa",
      session: {
        sessionId: "5f0c2a9e-1111-4d2b-9c51-aaaaaaaaaaaa", title: null, model: null, blockCount: 0,
        createdAt: new Date(clock.now()).toISOString(), updatedAt: new Date(clock.now()).toISOString(),
      },
    });
  });

  test("without sessionId one is generated; with no body at all too", async () => {
    const u = await s.user();
    const r = await createSession(u);
    expect(r.status).toBe(201);
    expect(r.body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const bare = await s.call("POST", "/v1/ai/chat/session", { headers: u.headers });
    expect(bare.status).toBe(201);
    expect(bare.body.sessionId).not.toBe(r.body.sessionId);
  });

  test("the same id again → 200 with the existing session, not a duplicate", async () => {
    const u = await s.user();
    await createSession(u, { sessionId: "again" });
    await say(u, "again", "hello");
    const r = await createSession(u, { sessionId: "again" });
    expect(r.status).toBe(200);
    expect(r.body.session.blockCount).toBe(2);
    expect((await get(u, "/sessions")).body.chatHistory).toHaveLength(1);
  });

  test.each([{ sessionId: "" }, { sessionId: "has space" }, { sessionId: "x".repeat(101) }])("invalid %j → 400", async (body) => {
    const u = await s.user();
    expect((await createSession(u, body)).status).toBe(400);
  });
});

describe("list: 10 per call, most recent first, skip", () => {
  test("12 sessions page as 10 + 2; a new message moves a session to the top", async () => {
    const u = await s.user();
    for (let i = 0; i < 12; i++) {
      clock.advance(1000);
      await createSession(u, { sessionId: `s${i}` });
    }
    const first = await get(u, "/sessions");
    expect(first.status).toBe(200);
    expect(first.body.message).toBe("Chat sessions");
    expect(first.body.chatHistory.map((x: any) => x.sessionId)).toEqual(["s11", "s10", "s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2"]);
    expect(first.body.hasMore).toBe(true);
    const second = await get(u, "/sessions?skip=10");
    expect(second.body.chatHistory.map((x: any) => x.sessionId)).toEqual(["s1", "s0"]);
    expect(second.body).toMatchObject({ skip: 10, hasMore: false });
    expect((await get(u, "/sessions?skip=50")).body.chatHistory).toEqual([]);

    await say(u, "s0", "bump");
    expect((await get(u, "/sessions")).body.chatHistory[0]).toMatchObject({ sessionId: "s0", title: "bump", blockCount: 2 });
  });

  test.each(["-1", "abc", "1.5"])("skip=%s → 400", async (skip) => {
    const u = await s.user();
    expect((await get(u, `/sessions?skip=${skip}`)).status).toBe(400);
  });

  test("no sessions → 200 with an empty list", async () => {
    const u = await s.user();
    expect((await get(u, "/sessions")).body).toEqual({ message: "No chat sessions", chatHistory: [], skip: 0, hasMore: false });
  });
});

describe("latest session and blocks: 3 per call, newest first", () => {
  test("GET /session pages the most recent session's blocks", async () => {
    const u = await s.user();
    await say(u, "older", "old question");
    for (const q of ["q1", "q2", "q3", "q4"]) await say(u, "current", q);
    const contents = async (skip: number) => {
      const r = await get(u, `/session?skip=${skip}`);
      expect(r.status).toBe(200);
      expect(r.body.sessionId).toBe("current");
      return { blocks: r.body.blocks.map((b: any) => `${b.role}:${b.content.replace("Answer from openai gpt-4o: ", "A ")}`), hasMore: r.body.hasMore };
    };
    expect(await contents(0)).toEqual({ blocks: ["assistant:A q4", "user:q4", "assistant:A q3"], hasMore: true });
    expect(await contents(3)).toEqual({ blocks: ["user:q3", "assistant:A q2", "user:q2"], hasMore: true });
    expect(await contents(6)).toEqual({ blocks: ["assistant:A q1", "user:q1"], hasMore: false });
    expect(await contents(9)).toEqual({ blocks: [], hasMore: false });
  });

  test("a block carries id, role, content, model, citations, createdAt", async () => {
    const u = await s.user();
    await say(u, "b", "hi");
    const [reply] = (await get(u, "/session")).body.blocks;
    expect(Object.keys(reply).sort()).toEqual(["citations", "content", "createdAt", "id", "model", "role"]);
    expect(reply).toMatchObject({ role: "assistant", model: "gpt-4o", citations: [], createdAt: new Date(clock.now()).toISOString() });
  });

  test("GET /session/:id pages the same way", async () => {
    const u = await s.user();
    for (const q of ["a", "b"]) await say(u, "by-id", q);
    await say(u, "other", "z");
    const r = await get(u, "/session/by-id?skip=1");
    expect(r.status).toBe(200);
    expect(r.body.sessionId).toBe("by-id");
    expect(r.body.blocks.map((b: any) => b.role + ":" + b.content.slice(-1))).toEqual(["user:b", "assistant:a", "user:a"]);
    expect(r.body.session.blockCount).toBe(4);
  });

  test("no session yet → 200 with sessionId null and no blocks", async () => {
    const u = await s.user();
    expect((await get(u, "/session")).body).toEqual({ message: "No chat sessions yet", sessionId: null, session: null, blocks: [], skip: 0, hasMore: false });
  });
});

describe("delete (both paths)", () => {
  test.each(["/session/", "/chatSession/"])("DELETE %s:id removes the session and its blocks", async (path) => {
    const u = await s.user();
    await say(u, "doomed", "bye");
    const r = await s.call("DELETE", `/v1/ai/chat${path}doomed`, { headers: u.headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Session deleted", sessionId: "doomed" });
    expect((await get(u, "/session/doomed")).status).toBe(404);
    expect((await get(u, "/sessions")).body.chatHistory).toEqual([]);
    const orphans = s.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM chat_blocks WHERE session_pk NOT IN (SELECT pk FROM chat_sessions)").get()!;
    expect(orphans.n).toBe(0);
    expect((await s.call("DELETE", `/v1/ai/chat${path}doomed`, { headers: u.headers })).status).toBe(404);
  });
});

describe("sessions belong to their user", () => {
  test("another user — even in the same workspace — gets 404 on read, page and delete", async () => {
    const owner = await s.user();
    await say(owner, "private", "my secret plan");
    for (const other of [await s.user(), await s.user("business", { join: owner.email })]) {
      const r = await get(other, "/session/private");
      expect([r.status, r.body.errCode]).toEqual([404, "SESSION_NOT_FOUND"]);
      expect((await get(other, "/sessions")).body.chatHistory).toEqual([]);
      expect((await get(other, "/session")).body.sessionId).toBeNull();
      expect((await s.call("DELETE", "/v1/ai/chat/session/private", { headers: other.headers })).status).toBe(404);
      expect((await s.call("DELETE", "/v1/ai/chat/chatSession/private", { headers: other.headers })).status).toBe(404);
    }
    expect((await get(owner, "/session/private")).body.blocks).toHaveLength(2);
  });

  test("without credentials → 401", async () => {
    expect((await s.call("GET", "/v1/ai/chat/sessions")).status).toBe(401);
  });
});

describe("GET /getFineTuningJob", () => {
  const tagged = (id: string, workspaceId: string | null, createdAt: number, extra: Partial<FakeFineTuningJob> = {}): FakeFineTuningJob => ({
    id, model: "gpt-4o-mini-2024-07-18", status: "running", created_at: createdAt,
    metadata: workspaceId ? { aivis_workspace: workspaceId } : null, ...extra,
  });

  test("200 saying there is none", async () => {
    fake.reset();
    const u = await s.user();
    const r = await get(u, "/getFineTuningJob");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "No fine-tuning job", job: null });
  });

  test("the newest job tagged with the caller's workspace — never another workspace's or an untagged one", async () => {
    fake.reset();
    const u = await s.user();
    const other = await s.user();
    fake.fineTuningJobs.push(
      tagged("ftjob-old", u.workspaceId, 1_790_000_000, {
        status: "succeeded", fine_tuned_model: "ft:gpt-4o-mini:acme::old", finished_at: 1_790_003_600, trained_tokens: 12_000,
      }),
      tagged("ftjob-current", u.workspaceId, 1_790_100_000, { estimated_finish: 1_790_103_600 }),
      tagged("ftjob-other", other.workspaceId, 1_790_200_000),
      tagged("ftjob-untagged", null, 1_790_300_000),
    );
    const r = await get(u, "/getFineTuningJob");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      message: "Current fine-tuning job",
      job: {
        id: "ftjob-current", status: "running", baseModel: "gpt-4o-mini-2024-07-18", fineTunedModel: null,
        createdAt: new Date(1_790_100_000_000).toISOString(), finishedAt: null,
        estimatedFinishAt: new Date(1_790_103_600_000).toISOString(), trainedTokens: null, error: null,
      },
    });
    const asked = fake.calls.find((c) => c.kind === "fine_tuning")!;
    expect(asked.body["metadata[aivis_workspace]"]).toBe(u.workspaceId);
    expect(asked.apiKey).toBe(fake.env.OPENAI_API_KEY);
    expect((await get(other, "/getFineTuningJob")).body.job.id).toBe("ftjob-other");

    // a compatible server that ignores the metadata filter still shows only the caller's job
    fake.fineTuningFilter = false;
    expect((await get(u, "/getFineTuningJob")).body.job.id).toBe("ftjob-current");
    expect((await get(await s.user(), "/getFineTuningJob")).body).toEqual({ message: "No fine-tuning job", job: null });
  });

  test("a finished job carries its fine-tuned model or its error", async () => {
    fake.reset();
    const u = await s.user();
    fake.fineTuningJobs.push(tagged("ftjob-done", u.workspaceId, 1_790_000_000, { status: "succeeded", fine_tuned_model: "ft:gpt-4o-mini:acme::done", finished_at: 1_790_003_600, trained_tokens: 12_000 }));
    expect((await get(u, "/getFineTuningJob")).body.job).toMatchObject({
      status: "succeeded", fineTunedModel: "ft:gpt-4o-mini:acme::done", finishedAt: new Date(1_790_003_600_000).toISOString(), trainedTokens: 12_000,
    });
    fake.fineTuningJobs.push(tagged("ftjob-bad", u.workspaceId, 1_790_100_000, {
      status: "failed", finished_at: 1_790_100_060, error: { code: "invalid_training_file", message: "line 3 is not JSON", param: "training_file" },
    }));
    expect((await get(u, "/getFineTuningJob")).body.job).toMatchObject({ id: "ftjob-bad", status: "failed", error: "line 3 is not JSON" });
  });

  test("provider failure → our error shape (502 PROVIDER_ERROR)", async () => {
    fake.reset();
    fake.failNext("openai", 500, 10);
    const r = await get(await s.user(), "/getFineTuningJob");
    expect([r.status, r.body.errCode]).toEqual([502, "PROVIDER_ERROR"]);
    expect(Object.keys(r.body).sort()).toEqual(["errCode", "message"]);
    fake.reset();
  });

  test.each([
    [{ OPENAI_API_KEY: "", OPENAI_BASE_URL: "" }, "the openai provider is not configured (set OPENAI_API_KEY)"],
    [{ OPENAI_BASE_URL: "LOCAL" }, "OPENAI_BASE_URL has no fine-tuning API"],
  ])("no openai provider, or a local server without the API → 200 none, saying why (%j)", async (env, why) => {
    fake.reset();
    const openai = env.OPENAI_BASE_URL === "LOCAL" ? { OPENAI_BASE_URL: `${fake.url}/local-model-server/v1` } : env;
    const other = await startTestServer({ ...fake.env, ...openai });
    try {
      const r = await other.call("GET", "/v1/ai/chat/getFineTuningJob", { headers: (await other.user()).headers });
      expect(r.status).toBe(200);
      expect(r.body.job).toBeNull();
      expect(r.body.message).toContain(why);
    } finally {
      await other.close();
    }
  });
});
