// Two worker processes on one SQLite file at the same time (e.g. two `aivis serve` on one data
// directory): claims are atomic across processes, so each job runs exactly once and both share
// the work. Jobs are enqueued by a third connection, so the workers learn of them by polling.
import { afterAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { loadConfig } from "../../src/config";
import { createJobQueue } from "../../src/jobs";
import { systemClock } from "../../src/platform/clock";
import { CRASH_JOB_NAME } from "../support/job-worker-process";
import { openJobsDb, waitFor } from "../support/jobs";

const JOBS = 400;
const WORKER_SCRIPT = resolve(import.meta.dir, "../support/job-worker-process.ts");
const h = openJobsDb(["ws-shared"]);
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill(9);
  h.close();
});

const count = (where: string) => h.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM jobs WHERE ${where}`).get()!.n;

test("two worker processes on one file: every job runs exactly once, both take part", async () => {
  h.db.exec("CREATE TABLE crash_effects (job_id TEXT NOT NULL, attempt INTEGER NOT NULL, pid INTEGER NOT NULL)");
  const workers = [0, 1].map(() => {
    const child = Bun.spawn([process.execPath, WORKER_SCRIPT, h.file], { stdout: "ignore", stderr: "inherit" });
    children.push(child);
    return child;
  });
  const producer = createJobQueue(h.db, systemClock, () => {}, loadConfig({}).worker); // enqueues only, never started
  // a steady stream, kept up until both workers have run something (one may start later)
  const workingPids = () => h.db.query<{ n: number }, []>("SELECT count(DISTINCT pid) AS n FROM crash_effects").get()!.n;
  let enqueued = 0;
  while (enqueued < JOBS || (workingPids() < 2 && enqueued < 10 * JOBS)) {
    for (let i = 0; i < 20; i++) producer.enqueue("aiQueue", CRASH_JOB_NAME, "ws-shared", { i: enqueued++ });
    await Bun.sleep(5);
  }
  await waitFor("every job to complete", () => count("state = 'completed'") === enqueued, 60_000);
  for (const child of workers) child.kill(9);

  expect(count("attempts_made <> 1")).toBe(0);
  const effects = h.db.query<{ job_id: string; pid: number }, []>("SELECT job_id, pid FROM crash_effects").all();
  expect(effects).toHaveLength(enqueued); // one side effect per job: none ran twice
  expect(new Set(effects.map((e) => e.job_id)).size).toBe(enqueued);
  const byPid = new Set(effects.map((e) => e.pid));
  expect(byPid).toEqual(new Set(workers.map((w) => w.pid)));
}, 90_000);
