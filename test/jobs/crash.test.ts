// The real crash test: a worker process is kill -9ed mid-batch, a new one starts on the same file,
// and every job ends completed: none lost, none stuck active, and the result of each job comes
// from exactly one recorded side effect of its last attempt (no attempt ran twice).
import { afterAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { createJobQueue } from "../../src/jobs";
import { loadConfig } from "../../src/config";
import { systemClock } from "../../src/platform/clock";
import { CRASH_JOB_NAME } from "../support/job-worker-process";
import { openJobsDb, waitFor } from "../support/jobs";

const JOBS = 300;
const WORKER_SCRIPT = resolve(import.meta.dir, "../support/job-worker-process.ts");
const h = openJobsDb(["ws-crash"]);
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill(9);
  h.close();
});

function spawnWorker() {
  const child = Bun.spawn([process.execPath, WORKER_SCRIPT, h.file], { stdout: "ignore", stderr: "inherit" });
  children.push(child);
  return child;
}

const count = (where: string) => h.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM jobs WHERE ${where}`).get()!.n;

test("kill -9 mid-batch: a new worker finishes every job, each exactly once per successful attempt", async () => {
  h.db.exec("CREATE TABLE crash_effects (job_id TEXT NOT NULL, attempt INTEGER NOT NULL, pid INTEGER NOT NULL)");
  const producer = createJobQueue(h.db, systemClock, () => {}, loadConfig({}).worker); // enqueues only, never started
  const ids = Array.from({ length: JOBS }, (_, i) => producer.enqueue("aiQueue", CRASH_JOB_NAME, "ws-crash", { i }, { attempts: 5 }).jobId);

  const first = spawnWorker();
  await waitFor("the first worker to be mid-batch", () => count("state = 'completed'") >= 60);
  first.kill(9);
  expect(await first.exited).not.toBe(0);
  const leftActive = count("state = 'active'");
  expect(leftActive).toBeGreaterThan(0); // the crash really left claimed work behind
  expect(count("state = 'completed'")).toBeLessThan(JOBS);

  const second = spawnWorker();
  await waitFor("every job to complete", () => count("state = 'completed'") === JOBS, 60_000);
  second.kill(9);
  await second.exited;

  expect(count("1")).toBe(JOBS); // none lost
  expect(count("state <> 'completed'")).toBe(0); // none stuck active, waiting or failed

  // no attempt of any job ran twice
  const duplicated = h.db.query("SELECT job_id, attempt FROM crash_effects GROUP BY job_id, attempt HAVING count(*) > 1").all();
  expect(duplicated).toEqual([]);

  const effects = new Map<string, { attempt: number; pid: number }[]>();
  for (const e of h.db.query<{ job_id: string; attempt: number; pid: number }, []>("SELECT * FROM crash_effects").all()) {
    effects.set(e.job_id, [...(effects.get(e.job_id) ?? []), { attempt: e.attempt, pid: e.pid }]);
  }
  const rows = h.db.query<{ id: string; attempts_made: number; result: string }, []>("SELECT id, attempts_made, result FROM jobs").all();
  let recovered = 0;
  for (const row of rows) {
    const result = JSON.parse(row.result) as { attempt: number; pid: number };
    // the completing attempt is the last one counted, and its side effect is on record, once
    expect(result.attempt).toBe(row.attempts_made - 1);
    expect(effects.get(row.id)).toContainEqual(result);
    // no side effect from an attempt that was never counted
    for (const e of effects.get(row.id)!) expect(e.attempt).toBeLessThan(row.attempts_made);
    if (row.attempts_made > 1) {
      recovered++;
      expect(result.pid).toBe(second.pid);
    }
  }
  expect(recovered).toBeGreaterThanOrEqual(leftActive);
  expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids));
});
