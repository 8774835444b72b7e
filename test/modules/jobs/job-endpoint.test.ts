// GET /v1/ai/generate/job/:jobId over a real server: SPEC 2.4 shape, 404 for unknown ids and for
// other workspaces' jobs, auth.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";
import { waitFor } from "../../support/jobs";

const SPEC_FIELDS = ["attemptsMade", "data", "failedReason", "finishedOn", "jobId", "name", "processedOn", "progress", "queue", "result", "state"];

let s: TestServer;
let alice: TestUser;
let bob: TestUser;
let aliceTeammate: TestUser;
beforeAll(async () => {
  s = await startTestServer();
  alice = await s.user("business");
  aliceTeammate = await s.user("business", { join: alice.email });
  bob = await s.user("enterprise");
  s.ctx.jobs.register("test_echo", async (job) => {
    job.updateProgress(50);
    return { echoed: job.data };
  });
});
afterAll(() => s.close());

describe("GET /v1/ai/generate/job/:jobId", () => {
  test("a completed job: 200 with exactly the SPEC 2.4 fields", async () => {
    const { jobId } = s.ctx.jobs.enqueue("contentQueue", "test_echo", alice.workspaceId, { text: "hello" });
    await waitFor("completed", () => s.ctx.jobs.get(jobId, alice.workspaceId)?.state === "completed");
    const r = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: alice.headers });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(SPEC_FIELDS);
    expect(r.body).toMatchObject({
      jobId,
      name: "test_echo",
      state: "completed",
      progress: 100,
      result: { echoed: { text: "hello" } },
      failedReason: null,
      attemptsMade: 1,
      data: { text: "hello" },
      queue: "contentQueue",
    });
    expect(Number.isInteger(r.body.processedOn)).toBe(true);
    expect(r.body.finishedOn).toBeGreaterThanOrEqual(r.body.processedOn);
    expect(r.headers.get("api-version")).toBe("v1");
  });

  test("a job nobody has started yet: waiting, nulls where nothing happened", async () => {
    const { jobId } = s.ctx.jobs.enqueue("seoQueue", "test_echo", alice.workspaceId, { n: 1 }, { delayMs: 3_600_000 });
    const r = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: alice.headers });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      jobId,
      name: "test_echo",
      state: "delayed",
      progress: 0,
      result: null,
      failedReason: null,
      attemptsMade: 0,
      processedOn: null,
      finishedOn: null,
      data: { n: 1 },
      queue: "seoQueue",
    });
  });

  test("a failed job carries failedReason", async () => {
    const { jobId } = s.ctx.jobs.enqueue("aiQueue", "no_such_handler", alice.workspaceId, {});
    await waitFor("failed", () => s.ctx.jobs.get(jobId, alice.workspaceId)?.state === "failed");
    const r = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: alice.headers });
    expect(r.body).toMatchObject({ state: "failed", attemptsMade: 1, result: null });
    expect(r.body.failedReason).toContain("no_such_handler");
  });

  test("a teammate in the same workspace sees it; the session cookie works too", async () => {
    const { jobId } = s.ctx.jobs.enqueue("aiQueue", "test_echo", alice.workspaceId, {});
    expect((await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: aliceTeammate.headers })).body.jobId).toBe(jobId);
    const cookie = await s.login(alice);
    expect((await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: cookie })).status).toBe(200);
  });

  test("another workspace's job is a 404 exactly like an unknown id", async () => {
    const { jobId } = s.ctx.jobs.enqueue("aiQueue", "test_echo", alice.workspaceId, { secret: "alice's" });
    const foreign = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: bob.headers });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: `job ${jobId} not found`, errCode: "JOB_NOT_FOUND", jobId });

    const unknownId = "01ZZZZZZZZZZZZZZZZZZZZZZZZ";
    const unknown = await s.call("GET", `/v1/ai/generate/job/${unknownId}`, { headers: alice.headers });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: `job ${unknownId} not found`, errCode: "JOB_NOT_FOUND", jobId: unknownId });
  });

  test("auth: no key → 401, a plan without API access → 403", async () => {
    const { jobId } = s.ctx.jobs.enqueue("aiQueue", "test_echo", alice.workspaceId, {});
    expect((await s.call("GET", `/v1/ai/generate/job/${jobId}`)).status).toBe(401);
    const freeUser = await s.user("free");
    const r = await s.call("GET", `/v1/ai/generate/job/${jobId}`, { headers: freeUser.headers });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe("PLAN_NOT_ELIGIBLE");
  });

  test("an id longer than any job id is a validation error, not a 500", async () => {
    const r = await s.call("GET", `/v1/ai/generate/job/${"x".repeat(129)}`, { headers: alice.headers });
    expect(r.status).toBe(400);
    expect(r.body.errCode).toBe("VALIDATION_FAILED");
  });
});
