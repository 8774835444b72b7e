// The scheduled-refresh tick on an injected clock: due schedules run once (however many times were
// missed), not before their time, and a schedule saved through an API-only process on the same
// data file is run by the worker process's tick.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../../src/platform/clock";
import { runDueSchedules, scheduleDueAt } from "../../../src/modules/visibility/schedule";
import { type FakeProviders, startFakeProviders } from "../../support/fake-providers";
import { startTestServer, type TestServer, type TestUser } from "../../support/server";

const HOUR = 3_600_000;
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
let fake: FakeProviders;
let worker: TestServer;
let api: TestServer;

beforeAll(async () => {
  fake = await startFakeProviders({ answer: () => "Ticksite is a fine pick." });
  worker = await startTestServer({ ...fake.env, AIVIS_RATE_LIMIT_PER_MINUTE: "100000" }, { clock });
  // a second process on the same file that serves the API and runs no worker
  api = await startTestServer({ ...fake.env, AIVIS_RATE_LIMIT_PER_MINUTE: "100000", AIVIS_DATA_DIR: worker.dataDir, AIVIS_WORKER: "false" }, { clock });
});
afterAll(async () => {
  await api.close();
  await worker.close();
  await fake.stop();
});

async function firstReport(u: TestUser) {
  const r = await worker.call("POST", "/v1/ai/generate/seo-site-report", { body: { websiteurl: "https://ticksite.test", prompts: ["q1"] }, headers: u.headers });
  expect(r.status).toBe(202);
  for (let i = 0; i < 400; i++) {
    const j = await worker.call("GET", `/v1/ai/generate/job/${r.body.jobId}`, { headers: u.headers });
    if (j.body.state === "completed") return;
    await Bun.sleep(25);
  }
  throw new Error("first report did not finish");
}

const scheduledRuns = (workspaceId: string) =>
  worker.ctx.db
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM visibility_reports WHERE workspace_id = ? AND trigger = 'scheduled'")
    .get(workspaceId)!.n;

test("a schedule saved through the API-only process runs on the worker's tick at its time, once", async () => {
  const u = await worker.user("business");
  await firstReport(u);
  // daily at 06:00 UTC; the clock is at 12:00, so the first run is tomorrow 06:00
  const saved = await api.call("PUT", "/v1/ai/generate/seo-site-report/schedule", { body: { cron: "0 6 * * *" }, headers: u.headers });
  expect(saved.status).toBe(200);
  expect(saved.body.schedule.nextRunAt).toBe("2026-06-02T06:00:00.000Z");

  expect(runDueSchedules(worker.ctx)).toEqual([]);
  clock.advance(17 * HOUR); // 05:00
  expect(runDueSchedules(worker.ctx)).toEqual([]);
  clock.advance(HOUR + 30_000); // 06:00:30
  expect(runDueSchedules(worker.ctx)).toEqual([u.workspaceId]);
  // the next tick, or another worker process, finds it claimed
  expect(runDueSchedules(worker.ctx)).toEqual([]);
  expect(runDueSchedules(api.ctx)).toEqual([]);
  expect(scheduledRuns(u.workspaceId)).toBe(1);
  const read = await api.call("GET", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers });
  expect(read.body.schedule.lastRunAt).toBe(new Date(clock.now()).toISOString());
  expect(read.body.schedule.lastError).toBeNull();

  // three days down: one catch-up run, not three
  clock.advance(3 * 24 * HOUR);
  expect(runDueSchedules(worker.ctx)).toEqual([u.workspaceId]);
  expect(runDueSchedules(worker.ctx)).toEqual([]);
  expect(scheduledRuns(u.workspaceId)).toBe(2);

  // disabled and removed schedules never run
  await api.call("PUT", "/v1/ai/generate/seo-site-report/schedule", { body: { cron: "0 6 * * *", enabled: false }, headers: u.headers });
  clock.advance(2 * 24 * HOUR);
  expect(runDueSchedules(worker.ctx)).toEqual([]);
  await api.call("DELETE", "/v1/ai/generate/seo-site-report/schedule", { headers: u.headers });
  expect(runDueSchedules(worker.ctx)).toEqual([]);
  expect(scheduledRuns(u.workspaceId)).toBe(2);
});

test("an edit restarts the count from the edit, so saving does not fire a missed run", () => {
  const row = { cron: "0 6 * * *", timezone: "Europe/Berlin", last_run_at: null, updated_at: Date.UTC(2026, 5, 1, 12) };
  // 06:00 in Berlin (summer time) is 04:00 UTC
  expect(scheduleDueAt(row)).toBe(Date.UTC(2026, 5, 2, 4));
  expect(scheduleDueAt({ ...row, last_run_at: Date.UTC(2026, 5, 3, 4, 0, 30) })).toBe(Date.UTC(2026, 5, 4, 4));
  expect(scheduleDueAt({ ...row, cron: "0 0 31 2 *" })).toBeNull();
});

test("a cron that never runs is refused", async () => {
  const u = await worker.user("business");
  const r = await worker.call("PUT", "/v1/ai/generate/seo-site-report/schedule", { body: { cron: "0 0 31 2 *" }, headers: u.headers });
  expect(r.status).toBe(400);
  expect(r.body.errCode).toBe("INVALID_CRON");
});
