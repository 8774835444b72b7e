// A worker process for the crash test (test/jobs/crash.test.ts): runs the job queue over the SQLite
// file named by argv[2]. Its handler records one side effect per attempt, then returns which
// attempt and process produced the result. The test kill -9s it mid-batch and starts another.
import { loadConfig } from "../../src/config";
import { migrate, openDatabase } from "../../src/db";
import { createJobQueue } from "../../src/jobs";
import { systemClock } from "../../src/platform/clock";

export const CRASH_JOB_NAME = "crash_test";

const file = process.argv[2];
if (import.meta.main && file) {
  const db = openDatabase(file);
  migrate(db);
  const config = loadConfig({
    AIVIS_WORKER_POLL_MS: "50",
    AIVIS_JOB_LEASE_MS: "1000",
    AIVIS_WORKER_CONCURRENCY: "4",
  }).worker;
  const jobs = createJobQueue(db, systemClock, () => {}, config);
  const recordEffect = db.query("INSERT INTO crash_effects (job_id, attempt, pid) VALUES ($jobId, $attempt, $pid)");
  jobs.register(CRASH_JOB_NAME, async (job) => {
    await Bun.sleep(1 + Math.random() * 8);
    recordEffect.run({ jobId: job.id, attempt: job.attemptsMade, pid: process.pid });
    // a gap between the side effect and the completion, so a kill can land inside it too
    await Bun.sleep(Math.random() * 3);
    return { attempt: job.attemptsMade, pid: process.pid };
  });
  jobs.start();
}
