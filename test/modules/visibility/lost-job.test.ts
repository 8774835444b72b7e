// A report whose job failed for good outside the handler (lease expired on the last attempt) is
// failed and refunded by the job's onFailed hook when the sweeper fails it, and, should that not
// have happened, on the next request; either way it stops counting as the free audit.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { DurableJobQueue } from "../../../src/jobs";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer } from "../../support/server";

let fake: FakeProviders;
let s: TestServer;

beforeAll(async () => {
  fake = await startFakeProviders();
  // no worker: the queued job stays put until the test fails it by hand
  s = await startTestServer({ ...fake.env, AIVIS_WORKER: "false" });
});
afterAll(async () => {
  await s.close();
  await fake.stop();
});

test("a lost job gives the free audit and the credits back", async () => {
  const u = await s.user("free");
  const session = await s.login(u);
  const post = () => s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://acme.test", prompts: ["q1", "q2"] }, headers: session });
  const credits = () =>
    s.ctx.db.query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE workspace_id = ?").get(u.workspaceId)!.used;

  const first = await post();
  expect(first.status).toBe(202);
  expect(credits()).toBe(2);
  expect((await post()).body.errCode).toBe("FREE_AUDIT_USED");

  s.ctx.db.query("UPDATE jobs SET state = 'failed', failed_reason = 'lease expired', finished_at = 1 WHERE id = ?").run(first.body.jobId);
  const again = await post();
  expect(again.status).toBe(202);
  expect(credits()).toBe(2);
  const lost = s.ctx.db.query<{ status: string; error: string }, [string]>("SELECT status, error FROM visibility_reports WHERE id = ?").get(first.body.reportId);
  expect(lost).toEqual({ status: "failed", error: "lease expired" });
});

test("a worker that died on the last attempt: the sweeper fails the job and the report follows at once, refunded", async () => {
  const u = await s.user("business");
  const session = await s.login(u);
  const credits = () =>
    s.ctx.db.query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE workspace_id = ?").get(u.workspaceId)!.used;
  const report = (id: string) =>
    s.ctx.db.query<{ status: string; error: string | null }, [string]>("SELECT status, error FROM visibility_reports WHERE id = ?").get(id);

  const queued = await s.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://acme.test", prompts: ["q1", "q2"] }, headers: session });
  expect(queued.status).toBe(202);
  expect(credits()).toBe(2);
  // its second and last attempt was running on a worker that is gone: the lease ran out a minute ago
  s.ctx.db
    .query("UPDATE jobs SET state = 'active', attempts_made = max_attempts - 1, lease_owner = 'dead', lease_expires_at = ? WHERE id = ?")
    .run(s.ctx.clock.now() - 60_000, queued.body.jobId);
  s.ctx.db.query("UPDATE visibility_reports SET status = 'running' WHERE id = ?").run(queued.body.reportId);

  const jobs = s.ctx.jobs as DurableJobQueue;
  jobs.start(); // this process's worker sweeps at once
  try {
    for (let i = 0; i < 200 && report(queued.body.reportId)!.status !== "failed"; i++) await Bun.sleep(10);
  } finally {
    await jobs.stop();
  }
  // no request read the report in between: the hook did it
  expect(report(queued.body.reportId)).toEqual({ status: "failed", error: expect.stringContaining("lease expired") });
  expect(credits()).toBe(0);
  expect(s.ctx.jobs.get(queued.body.jobId, u.workspaceId)).toMatchObject({ state: "failed", attemptsMade: 2 });
});
