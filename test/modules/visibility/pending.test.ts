// GET /seo-site-report/pending: the report still queued or running, so a client (the dashboard)
// can follow a report it did not start; scoped to the workspace; a lost job is never pending.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer } from "../../support/server";

let fake: FakeProviders;
let s: TestServer;

beforeAll(async () => {
  fake = await startFakeProviders();
  // no worker: a queued report stays queued until the test changes its job by hand
  s = await startTestServer({ ...fake.env, AIVIS_WORKER: "false" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});

const PENDING = "/v1/ai/generate/seo-site-report/pending";

test("a queued report is pending for its workspace only, with the job to poll", async () => {
  const u = await s.user("business");
  const other = await s.user("business");
  expect((await s.call("GET", PENDING, { headers: u.headers })).body).toEqual({ message: "No report in progress", pending: null });

  const queued = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://acme.test", prompts: ["q1"] }, headers: u.headers });
  expect(queued.status).toBe(202);
  const res = await s.call("GET", PENDING, { headers: u.headers });
  expect(res.status).toBe(200);
  expect(res.body.message).toBe("A report is in progress");
  expect(res.body.pending).toEqual({
    reportId: queued.body.reportId,
    jobId: queued.body.jobId,
    status: "queued",
    trigger: "new",
    websiteurl: "https://acme.test/",
    createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
  });
  // the job it names is one the caller may poll
  expect((await s.call("GET", `/v1/ai/generate/job/${queued.body.jobId}`, { headers: u.headers })).body.state).toBe("waiting");

  // another workspace sees nothing of it
  expect((await s.call("GET", PENDING, { headers: other.headers })).body.pending).toBeNull();
});

test("a report whose job failed for good is not pending (it is failed and refunded)", async () => {
  const u = await s.user("business");
  const queued = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://acme.test", prompts: ["q1"] }, headers: u.headers });
  expect((await s.call("GET", PENDING, { headers: u.headers })).body.pending.jobId).toBe(queued.body.jobId);

  s.ctx.db.query("UPDATE jobs SET state = 'failed', failed_reason = 'lease expired', finished_at = 1 WHERE id = ?").run(queued.body.jobId);
  expect((await s.call("GET", PENDING, { headers: u.headers })).body.pending).toBeNull();
  const row = s.ctx.db.query<{ status: string }, [string]>("SELECT status FROM visibility_reports WHERE id = ?").get(queued.body.reportId);
  expect(row).toEqual({ status: "failed" });
});

test("without credentials it is a 401", async () => {
  const r = await s.call("GET", PENDING);
  expect(r.status).toBe(401);
  expect(typeof r.body.errCode).toBe("string");
});
