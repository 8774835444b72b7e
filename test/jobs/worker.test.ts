// The worker loop over a real SQLite file: handlers, wake-up, retries with an injected clock,
// concurrency, lease renewal and recovery, graceful stop.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { createJobQueue, type DurableJobQueue, NonRetryableJobError } from "../../src/jobs";
import { findJob, LEASE_EXPIRED_REASON, recoverExpiredLeases } from "../../src/jobs/queue";
import type { FailedJob, JobContext } from "../../src/jobs/types";
import { ManualClock } from "../../src/platform/clock";
import type { Logger } from "../../src/platform/log";
import { type JobsDb, jobState, openJobsDb, waitFor } from "../support/jobs";

const LEASE = 1000;
let h: JobsDb;
let clock: ManualClock;
const queues: DurableJobQueue[] = [];

function makeQueue(env: Record<string, string> = {}, log: Logger = () => {}) {
  const config = loadConfig({
    AIVIS_WORKER_POLL_MS: "20",
    AIVIS_JOB_LEASE_MS: String(LEASE),
    AIVIS_WORKER_CONCURRENCY: "2",
    AIVIS_SHUTDOWN_GRACE_MS: "5000",
    ...env,
  }).worker;
  const q = createJobQueue(h.db, clock, log, config);
  queues.push(q);
  return q;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

beforeEach(() => {
  h = openJobsDb();
  clock = new ManualClock(Date.UTC(2026, 0, 1));
});
afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop();
  h.close();
});

describe("running jobs", () => {
  test("a handler gets the job, reports progress, and its return value becomes the result", async () => {
    const q = makeQueue();
    const seen: JobContext[] = [];
    q.register("echo", async (job) => {
      seen.push(job);
      job.updateProgress(30);
      expect(findJob(h.db, job.id, job.workspaceId)?.progress).toBe(30);
      return { echoed: job.data };
    });
    q.start();
    const { jobId } = q.enqueue("contentQueue", "echo", "ws-a", { text: "hi" });
    await waitFor("completed", () => q.get(jobId, "ws-a")?.state === "completed");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id: jobId, name: "echo", queue: "contentQueue", workspaceId: "ws-a", data: { text: "hi" }, attemptsMade: 0 });
    expect(q.get(jobId, "ws-a")).toEqual({
      jobId,
      name: "echo",
      state: "completed",
      progress: 100,
      result: { echoed: { text: "hi" } },
      failedReason: null,
      attemptsMade: 1,
      processedOn: clock.now(),
      finishedOn: clock.now(),
      data: { text: "hi" },
      queue: "contentQueue",
    });
    expect(q.get(jobId, "ws-b")).toBeNull();
  });

  test("enqueue wakes the worker at once, without waiting for the poll", async () => {
    const q = makeQueue({ AIVIS_WORKER_POLL_MS: "600000" }); // a poll would not come within the test
    q.register("noop", async () => "done");
    q.start();
    await Bun.sleep(20); // the first (empty) tick has run; the worker now sleeps until the poll
    const { jobId } = q.enqueue("aiQueue", "noop", "ws-a", null);
    await waitFor("completed", () => jobState(h.db, jobId) === "completed");
  });

  test("a failing job retries after its backoff (injected clock), then completes", async () => {
    const q = makeQueue();
    const attempts: number[] = [];
    q.register("flaky", async (job) => {
      attempts.push(job.attemptsMade);
      if (job.attemptsMade < 2) throw new Error(`try ${job.attemptsMade} failed`);
      return "third time lucky";
    });
    q.start();
    const { jobId } = q.enqueue("aiQueue", "flaky", "ws-a", {}, { attempts: 3, backoffMs: 10_000 });
    await waitFor("first failure", () => findJob(h.db, jobId, "ws-a")!.attempts_made === 1);
    expect(q.get(jobId, "ws-a")).toMatchObject({ state: "delayed", failedReason: null, finishedOn: null });
    await Bun.sleep(100); // several polls: nothing runs before the backoff is over
    expect(attempts).toEqual([0]);

    clock.advance(10_000);
    await waitFor("second failure", () => findJob(h.db, jobId, "ws-a")!.attempts_made === 2);
    expect(findJob(h.db, jobId, "ws-a")!.run_at).toBe(clock.now() + 20_000); // doubled
    clock.advance(19_999);
    await Bun.sleep(100);
    expect(attempts).toEqual([0, 1]);
    clock.advance(1);
    await waitFor("completed", () => jobState(h.db, jobId) === "completed");
    expect(attempts).toEqual([0, 1, 2]);
    expect(q.get(jobId, "ws-a")).toMatchObject({ state: "completed", result: "third time lucky", attemptsMade: 3 });
  });

  test("a delayed job and a retry run when due, without waiting for the poll", async () => {
    const q = makeQueue({ AIVIS_WORKER_POLL_MS: "600000" });
    const runs: string[] = [];
    q.register("later", async (job) => {
      runs.push(`${job.id}#${job.attemptsMade}`);
      if (job.attemptsMade === 0 && (job.data as { failFirst: boolean }).failFirst) throw new Error("first try fails");
    });
    q.start();
    const delayed = q.enqueue("aiQueue", "later", "ws-a", { failFirst: false }, { delayMs: 30 }).jobId;
    const retried = q.enqueue("aiQueue", "later", "ws-a", { failFirst: true }, { backoffMs: 30 }).jobId;
    await waitFor("first attempt of the retried job", () => jobState(h.db, retried) === "delayed" && runs.length === 1);
    expect(jobState(h.db, delayed)).toBe("delayed");
    clock.advance(30);
    await waitFor("both completed", () => jobState(h.db, delayed) === "completed" && jobState(h.db, retried) === "completed");
    expect(runs.sort()).toEqual([`${delayed}#0`, `${retried}#0`, `${retried}#1`].sort());
  });

  test("attempts spent → failed with the last error as failedReason", async () => {
    const q = makeQueue();
    q.register("doomed", async (job) => {
      throw new Error(`nope #${job.attemptsMade}`);
    });
    q.start();
    const { jobId } = q.enqueue("aiQueue", "doomed", "ws-a", {}, { attempts: 2, backoffMs: 0 });
    await waitFor("failed", () => jobState(h.db, jobId) === "failed");
    expect(q.get(jobId, "ws-a")).toMatchObject({ state: "failed", failedReason: "nope #1", attemptsMade: 2, finishedOn: clock.now() });
  });

  test("NonRetryableJobError fails at once; an unknown job name fails with a clear reason", async () => {
    const q = makeQueue();
    q.register("strict", async () => {
      throw new NonRetryableJobError("model is not configured");
    });
    q.start();
    const strict = q.enqueue("aiQueue", "strict", "ws-a", {}, { attempts: 5 }).jobId;
    const unknown = q.enqueue("aiQueue", "nobody_handles_this", "ws-a", {}).jobId;
    await waitFor("both failed", () => jobState(h.db, strict) === "failed" && jobState(h.db, unknown) === "failed");
    expect(q.get(strict, "ws-a")).toMatchObject({ failedReason: "model is not configured", attemptsMade: 1 });
    expect(q.get(unknown, "ws-a")!.failedReason).toContain('no handler is registered for job name "nobody_handles_this"');
  });

  test("registering the same name twice is a programming error", () => {
    const q = makeQueue();
    q.register("once", async () => null);
    expect(() => q.register("once", async () => null)).toThrow(/already registered/);
  });
});

describe("concurrency", () => {
  test("at most AIVIS_WORKER_CONCURRENCY jobs run per queue, queues independently", async () => {
    const q = makeQueue({ AIVIS_WORKER_CONCURRENCY: "2" });
    const gate = deferred();
    const runningNow: Record<string, number> = { aiQueue: 0, seoQueue: 0 };
    const peak: Record<string, number> = { aiQueue: 0, seoQueue: 0 };
    let finished = 0;
    q.register("slow", async (job) => {
      runningNow[job.queue]++;
      peak[job.queue] = Math.max(peak[job.queue], runningNow[job.queue]);
      await gate.promise;
      runningNow[job.queue]--;
      finished++;
    });
    q.start();
    const ids = [
      ...Array.from({ length: 6 }, () => q.enqueue("aiQueue", "slow", "ws-a", {}).jobId),
      ...Array.from({ length: 3 }, () => q.enqueue("seoQueue", "slow", "ws-a", {}).jobId),
    ];
    await waitFor("both queues full", () => runningNow.aiQueue === 2 && runningNow.seoQueue === 2);
    await Bun.sleep(100); // polls come and go; nobody else may start
    expect(runningNow).toEqual({ aiQueue: 2, seoQueue: 2 });
    const active = h.db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state = 'active'").get()!.n;
    expect(active).toBe(4);
    gate.resolve();
    await waitFor("all done", () => finished === 9 && ids.every((id) => jobState(h.db, id) === "completed"));
    expect(peak).toEqual({ aiQueue: 2, seoQueue: 2 });
  });
});

describe("leases", () => {
  test("a running job's lease is renewed, so the sweeper leaves it alone", async () => {
    const q = makeQueue();
    const gate = deferred();
    q.register("long", async () => {
      await gate.promise;
      return "finished";
    });
    q.start();
    const { jobId } = q.enqueue("aiQueue", "long", "ws-a", {});
    await waitFor("active", () => jobState(h.db, jobId) === "active");
    const firstExpiry = findJob(h.db, jobId, "ws-a")!.lease_expires_at!;
    clock.advance(LEASE - 100);
    await waitFor("renewed", () => findJob(h.db, jobId, "ws-a")!.lease_expires_at! === clock.now() + LEASE);
    clock.advance(200); // past the first lease, within the renewed one
    expect(clock.now()).toBeGreaterThan(firstExpiry);
    expect(recoverExpiredLeases(h.db, clock.now())).toEqual([]);
    gate.resolve();
    await waitFor("completed", () => jobState(h.db, jobId) === "completed");
    expect(q.get(jobId, "ws-a")).toMatchObject({ result: "finished", attemptsMade: 1 });
  });

  test("a job left active by a dead worker is recovered by the sweeper and rerun", async () => {
    // a worker claims it and then "dies": stopped past its grace period, so its lease is never released
    const dead = makeQueue({ AIVIS_SHUTDOWN_GRACE_MS: "0" });
    const hang = deferred();
    let deadSawAbort = false;
    dead.register("work", async (job) => {
      job.signal.addEventListener("abort", () => (deadSawAbort = true));
      await hang.promise;
      return "from the dead worker";
    });
    dead.start();
    const { jobId } = dead.enqueue("aiQueue", "work", "ws-a", { n: 1 });
    await waitFor("active", () => jobState(h.db, jobId) === "active");
    await dead.stop();
    expect(deadSawAbort).toBe(true);
    expect(jobState(h.db, jobId)).toBe("active");

    const alive = makeQueue();
    const runs: number[] = [];
    alive.register("work", async (job) => {
      runs.push(job.attemptsMade);
      return "from the new worker";
    });
    alive.start();
    await Bun.sleep(100);
    expect(jobState(h.db, jobId)).toBe("active"); // the lease still holds
    clock.advance(LEASE);
    await waitFor("completed by the new worker", () => jobState(h.db, jobId) === "completed");
    hang.resolve(); // the dead worker's handler finishing late changes nothing
    await Bun.sleep(20);
    expect(runs).toEqual([1]);
    expect(alive.get(jobId, "ws-a")).toMatchObject({ state: "completed", result: "from the new worker", attemptsMade: 2 });
  });
});

describe("onFailed", () => {
  // what a hook writes (a refund, say), to check it commits with the failure and only once
  const refunds = () => h.db.query<{ job_id: string }, []>("SELECT job_id FROM refunds").all().map((r) => r.job_id);
  const refundOnFailure = (seen: FailedJob[]) => (job: FailedJob) => {
    seen.push(job);
    h.db.query("INSERT INTO refunds (job_id) VALUES ($id)").run({ id: job.id });
  };
  beforeEach(() => h.db.exec("CREATE TABLE refunds (job_id TEXT NOT NULL)"));

  test("runs once when the last attempt throws or a NonRetryableJobError is thrown; never for a retry or a success", async () => {
    const q = makeQueue();
    const seen: FailedJob[] = [];
    q.register(
      "doomed",
      async (job) => {
        throw new Error(`nope #${job.attemptsMade}`);
      },
      { onFailed: refundOnFailure(seen) },
    );
    q.register(
      "strict",
      async () => {
        throw new NonRetryableJobError("bad input");
      },
      { onFailed: refundOnFailure(seen) },
    );
    q.register(
      "flaky",
      async (job) => {
        if (job.attemptsMade === 0) throw new Error("first try fails");
        return "ok";
      },
      { onFailed: refundOnFailure(seen) },
    );
    q.start();
    const doomed = q.enqueue("aiQueue", "doomed", "ws-a", { credit: 1 }, { attempts: 3, backoffMs: 0 }).jobId;
    const strict = q.enqueue("seoQueue", "strict", "ws-b", { credit: 2 }, { attempts: 5 }).jobId;
    const flaky = q.enqueue("aiQueue", "flaky", "ws-a", {}, { backoffMs: 0 }).jobId;
    await waitFor("all settled", () => [doomed, strict].every((id) => jobState(h.db, id) === "failed") && jobState(h.db, flaky) === "completed");
    await Bun.sleep(50); // later ticks add nothing
    expect(seen.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { id: doomed, name: "doomed", queue: "aiQueue", workspaceId: "ws-a", data: { credit: 1 }, attemptsMade: 3, reason: "nope #2" },
      { id: strict, name: "strict", queue: "seoQueue", workspaceId: "ws-b", data: { credit: 2 }, attemptsMade: 1, reason: "bad input" },
    ]);
    expect(refunds().sort()).toEqual([doomed, strict].sort());
  });

  test("runs when the sweeper fails a job whose lease expired on its last attempt (its handler never finished)", async () => {
    const dead = makeQueue({ AIVIS_SHUTDOWN_GRACE_MS: "0" });
    const deadSeen: FailedJob[] = [];
    dead.register("work", () => new Promise(() => {}), { onFailed: refundOnFailure(deadSeen) }); // hangs until the worker "dies"
    dead.start();
    const { jobId } = dead.enqueue("contentQueue", "work", "ws-a", { credit: 1 }, { attempts: 1 });
    await waitFor("active", () => jobState(h.db, jobId) === "active");
    await dead.stop();

    const alive = makeQueue();
    const seen: FailedJob[] = [];
    let ran = 0;
    alive.register("work", async () => void ran++, { onFailed: refundOnFailure(seen) });
    alive.start();
    await Bun.sleep(100);
    expect(seen).toEqual([]); // the lease still holds
    clock.advance(LEASE);
    await waitFor("failed by the sweeper", () => jobState(h.db, jobId) === "failed");
    expect(seen).toEqual([{ id: jobId, name: "work", queue: "contentQueue", workspaceId: "ws-a", data: { credit: 1 }, attemptsMade: 1, reason: LEASE_EXPIRED_REASON }]);
    expect(refunds()).toEqual([jobId]);
    expect([ran, deadSeen.length]).toEqual([0, 0]);
  });

  test("a hook that throws: its writes roll back, the error is logged, the job is failed and the worker goes on", async () => {
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    const q = makeQueue({}, (level, msg, fields) => void (level === "error" && logged.push({ msg, fields })));
    q.register(
      "broken_hook",
      async () => {
        throw new NonRetryableJobError("handler failed");
      },
      {
        onFailed(job) {
          h.db.query("INSERT INTO refunds (job_id) VALUES ($id)").run({ id: job.id });
          throw new Error("hook failed");
        },
      },
    );
    q.register("fine", async () => "done");
    q.start();
    const broken = q.enqueue("aiQueue", "broken_hook", "ws-a", {}).jobId;
    await waitFor("failed", () => jobState(h.db, broken) === "failed");
    expect(q.get(broken, "ws-a")).toMatchObject({ state: "failed", failedReason: "handler failed" });
    expect(refunds()).toEqual([]);
    expect(logged).toContainEqual({ msg: expect.stringContaining("onFailed hook threw"), fields: expect.objectContaining({ jobId: broken, error: "hook failed" }) });
    const fine = q.enqueue("aiQueue", "fine", "ws-a", {}).jobId;
    await waitFor("completed", () => jobState(h.db, fine) === "completed");
  });
});

describe("graceful stop", () => {
  test("stop waits for running handlers within the grace period and commits their outcome", async () => {
    const q = makeQueue({ AIVIS_SHUTDOWN_GRACE_MS: "10000" });
    const gate = deferred();
    q.register("finishing", async (job) => {
      await gate.promise;
      return { aborted: job.signal.aborted };
    });
    q.start();
    const { jobId } = q.enqueue("aiQueue", "finishing", "ws-a", {});
    const later = q.enqueue("aiQueue", "finishing", "ws-a", {}, { delayMs: 1 }).jobId;
    await waitFor("active", () => jobState(h.db, jobId) === "active");
    const stopped = q.stop();
    clock.advance(10); // `later` is due now, but a stopping worker claims nothing
    setTimeout(gate.resolve, 50);
    await stopped;
    expect(q.get(jobId, "ws-a")).toMatchObject({ state: "completed", result: { aborted: false } });
    expect(jobState(h.db, later)).toBe("delayed");
  });
});

describe("retention", () => {
  test("prune() deletes completed jobs after AIVIS_JOB_KEEP_COMPLETED_DAYS and failed ones after AIVIS_JOB_KEEP_FAILED_DAYS", async () => {
    const DAY = 86_400_000;
    const q = makeQueue({ AIVIS_JOB_KEEP_COMPLETED_DAYS: "7", AIVIS_JOB_KEEP_FAILED_DAYS: "30" });
    q.register("ok", async () => "fine");
    q.start();
    const done = q.enqueue("aiQueue", "ok", "ws-a", {}).jobId;
    const failed = q.enqueue("aiQueue", "missing_handler", "ws-a", {}).jobId;
    await waitFor("finished", () => jobState(h.db, done) === "completed" && jobState(h.db, failed) === "failed");
    const pending = q.enqueue("aiQueue", "ok", "ws-a", {}, { delayMs: 365 * DAY }).jobId;

    clock.advance(7 * DAY);
    expect(q.prune()).toEqual({ completed: 0, failed: 0 }); // exactly 7 days: still kept
    clock.advance(1);
    expect(q.prune()).toEqual({ completed: 1, failed: 0 });
    expect(q.get(done, "ws-a")).toBeNull();
    clock.advance(23 * DAY);
    expect(q.prune()).toEqual({ completed: 0, failed: 1 });
    expect(q.get(failed, "ws-a")).toBeNull();
    expect(q.get(pending, "ws-a")?.state).toBe("delayed");
  });

  test("start() prunes at once, so a process restarted more often than the hourly schedule still prunes", async () => {
    const env = { AIVIS_JOB_KEEP_COMPLETED_DAYS: "1" };
    const before = makeQueue(env);
    before.register("ok", async () => "fine");
    before.start();
    const done = before.enqueue("aiQueue", "ok", "ws-a", {}).jobId;
    await waitFor("completed", () => jobState(h.db, done) === "completed");
    await before.stop();
    clock.advance(86_400_001);
    const after = makeQueue(env);
    expect(after.get(done, "ws-a")?.state).toBe("completed");
    after.start();
    expect(after.get(done, "ws-a")).toBeNull();
  });
});
