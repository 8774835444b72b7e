// A report whose job failed for good outside the handler (lease expired on the last attempt) is
// failed and refunded on the next request, so it stops counting as the free audit.
import { afterAll, beforeAll, expect, test } from "bun:test";
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
