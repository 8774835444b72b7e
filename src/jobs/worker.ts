// The worker loop: claims due jobs per queue up to the concurrency limit, runs their handlers,
// renews leases while they run, sweeps expired leases, and stops gracefully. Outcomes that arrive
// in the same tick are committed together with the next claim, in one transaction, and so are the
// onFailed hooks of jobs that failed for good, whether their handler threw or their lease expired.
import { hostname } from "node:os";
import type { Config } from "../config";
import { type DB, tx } from "../db";
import type { Clock } from "../platform/clock";
import { randomToken } from "../platform/ids";
import type { Logger } from "../platform/log";
import { failureMessage, NonRetryableJobError } from "./lifecycle";
import {
  claimJobs,
  completeJob,
  failJob,
  fenceOf,
  type ClaimedJob,
  LEASE_EXPIRED_REASON,
  recoverExpiredLeases,
  type RecoveredJob,
  renewLeases,
  setJobProgress,
} from "./queue";
import { type JobHandler, type JobHandlerOptions, type JobInfo, QUEUE_NAMES, type QueueName } from "./types";

export type WorkerSettings = Pick<Config["worker"], "pollMs" | "concurrency" | "leaseMs" | "shutdownGraceMs">;

/** What register() stored for a job name. */
export interface RegisteredHandler extends JobHandlerOptions {
  run: JobHandler;
}

export interface Worker {
  start(): void;
  /** a job was enqueued on `queue`, due at `at`: claim it now, or by then if that is before the next poll */
  wake(queue: QueueName, at: number): void;
  /** stop claiming; wait for running handlers up to the grace period, then abort them */
  stop(): Promise<void>;
}

/** The row as handlers and hooks see it (data parsed; a bad payload throws inside the attempt). */
function jobInfo(job: Pick<ClaimedJob, "id" | "name" | "queue" | "workspace_id" | "data">): JobInfo {
  return { id: job.id, name: job.name, queue: job.queue, workspaceId: job.workspace_id, data: JSON.parse(job.data) };
}

type Outcome = { job: ClaimedJob; at: number } & ({ ok: true; resultJson: string } | { ok: false; error: unknown });

export function createWorker(deps: {
  db: DB;
  clock: Clock;
  log: Logger;
  settings: WorkerSettings;
  handlers: ReadonlyMap<string, RegisteredHandler>;
}): Worker {
  const { db, clock, log, settings, handlers } = deps;
  // short: it is written into every row the worker claims; start() logs the host and pid it stands for
  const id = randomToken(6);
  // an idle worker still sweeps at least this often (and at every poll when the lease is short)
  const sweepEveryMs = Math.max(settings.pollMs, Math.floor(settings.leaseMs / 2));

  let accepting = false;
  let generation = 0; // bumped on stop so handlers that outlive the grace period write nothing
  let abort = new AbortController();
  let pumpQueued = false;
  let pollTimer: Timer | undefined;
  let timerAt = Infinity;
  let nextDueAt = Infinity; // earliest known run_at of a delayed job, so a retry does not wait for the poll
  // queues that may hold due jobs: set by enqueue here and by every poll (other processes, delays
  // running out), cleared when a claim comes back short, so idle queues cost no query
  const maybeDue = new Set<QueueName>(QUEUE_NAMES);
  let renewTimer: Timer | undefined;
  let lastSweepAt = -Infinity;
  let outcomes: Outcome[] = [];
  const running = new Map<Promise<void>, string>(); // → job id
  const activePerQueue = Object.fromEntries(QUEUE_NAMES.map((q) => [q, 0])) as Record<QueueName, number>;

  function schedulePump() {
    if (pumpQueued || !accepting) return;
    pumpQueued = true;
    setImmediate(pump);
  }

  function record(outcome: Outcome) {
    const { job } = outcome;
    if (outcome.ok) {
      if (!completeJob(db, outcome.at, fenceOf(job), outcome.resultJson)) leaseLost(job);
      return;
    }
    const reason = failureMessage(outcome.error);
    const next = failJob(db, outcome.at, job, reason, !(outcome.error instanceof NonRetryableJobError));
    if (next === null) return leaseLost(job);
    const fields = { jobId: job.id, name: job.name, attempt: next.attemptsMade, error: reason };
    if (next.state === "failed") {
      log("error", "job failed", fields);
      return failedForGood({ ...job, attempts_made: next.attemptsMade }, reason);
    }
    nextDueAt = Math.min(nextDueAt, next.runAt);
    armTimer(next.runAt);
    log("warn", "job attempt failed; retrying after backoff", { ...fields, retryAt: next.runAt });
  }

  /** Runs the job name's onFailed hook in a savepoint of the current transaction: its writes commit with the failure, or not at all. */
  function failedForGood(job: Omit<RecoveredJob, "state">, reason: string) {
    const onFailed = handlers.get(job.name)?.onFailed;
    if (!onFailed) return;
    try {
      db.transaction(() =>
        onFailed({ ...jobInfo(job), attemptsMade: job.attempts_made, reason }),
      )();
    } catch (error) {
      log("error", "a job's onFailed hook threw; its writes were rolled back and the job is failed anyway", {
        jobId: job.id,
        name: job.name,
        error: failureMessage(error),
      });
    }
  }

  /** The sweeper: jobs of dead workers go back to waiting (claimable at once), or fail for good on their last attempt. */
  function sweep(now: number) {
    const recovered = recoverExpiredLeases(db, now);
    if (!recovered.length) return;
    log("warn", "recovered jobs with expired leases", { jobs: recovered.map(({ id, name, state }) => ({ id, name, state })) });
    for (const job of recovered) {
      if (job.state === "waiting") maybeDue.add(job.queue);
      else failedForGood(job, LEASE_EXPIRED_REASON);
    }
  }

  function leaseLost(job: ClaimedJob) {
    log("warn", "job outcome dropped: its lease expired and the job was recovered", { jobId: job.id, name: job.name });
  }

  /** Commits finished outcomes; when still accepting, sweeps when due and claims into free slots. */
  function commitAndClaim(): ClaimedJob[] {
    const batch = outcomes;
    outcomes = [];
    const now = clock.now();
    try {
      return tx(db, () => {
        for (const outcome of batch) record(outcome);
        if (!accepting) return [];
        if (now - lastSweepAt >= sweepEveryMs) {
          lastSweepAt = now;
          sweep(now);
        }
        const claimed: ClaimedJob[] = [];
        for (const queue of maybeDue) {
          const free = settings.concurrency - activePerQueue[queue];
          if (free === 0) continue;
          const jobs = claimJobs(db, now, queue, id, settings.leaseMs, free);
          if (jobs.length < free) maybeDue.delete(queue);
          claimed.push(...jobs);
        }
        return claimed;
      });
    } catch (error) {
      // e.g. the database is busy past busy_timeout: keep the outcomes and try again at the next poll
      outcomes = batch.concat(outcomes);
      log("error", "job worker tick failed", { error: failureMessage(error) });
      return [];
    }
  }

  function pump() {
    pumpQueued = false;
    if (accepting) for (const job of commitAndClaim()) runJob(job);
  }

  /** The poll, or an earlier known due time: look at every queue. */
  function onTimer() {
    pollTimer = undefined;
    timerAt = Infinity;
    const now = clock.now();
    if (nextDueAt <= now) nextDueAt = Infinity;
    for (const queue of QUEUE_NAMES) maybeDue.add(queue);
    schedulePump();
    armTimer(Math.min(now + settings.pollMs, nextDueAt));
  }

  function armTimer(at: number) {
    if (!accepting || at >= timerAt) return;
    clearTimeout(pollTimer);
    timerAt = at;
    pollTimer = setTimeout(onTimer, Math.max(0, at - clock.now()));
  }

  function wake(queue: QueueName, at: number) {
    if (at > clock.now()) {
      nextDueAt = Math.min(nextDueAt, at);
      return armTimer(at);
    }
    maybeDue.add(queue);
    schedulePump();
  }

  function runJob(job: ClaimedJob) {
    activePerQueue[job.queue]++;
    const gen = generation;
    const done = attempt(job, gen).then((outcome) => {
      activePerQueue[job.queue]--;
      running.delete(done);
      if (gen !== generation) return; // abandoned at shutdown: the lease expires and the job reruns
      outcomes.push(outcome);
      schedulePump();
    });
    running.set(done, job.id);
  }

  /** Runs the handler; never throws: anything that goes wrong is the attempt's failure. */
  async function attempt(job: ClaimedJob, gen: number): Promise<Outcome> {
    try {
      const handler = handlers.get(job.name);
      if (!handler) throw new NonRetryableJobError(`no handler is registered for job name "${job.name}"`);
      const fence = fenceOf(job);
      const result = await handler.run({
        ...jobInfo(job),
        attemptsMade: job.attempts_made,
        signal: abort.signal,
        updateProgress(progress: number) {
          if (gen !== generation || !Number.isFinite(progress)) return;
          setJobProgress(db, fence, Math.min(100, Math.max(0, progress)));
        },
      });
      // a function or symbol serializes to undefined: store null like undefined
      return { job, at: clock.now(), ok: true, resultJson: JSON.stringify(result ?? null) ?? "null" };
    } catch (error) {
      return { job, at: clock.now(), ok: false, error };
    }
  }

  function renew() {
    if (running.size === 0) return;
    try {
      renewLeases(db, clock.now(), id, settings.leaseMs);
    } catch (error) {
      log("error", "job lease renewal failed", { error: failureMessage(error) });
    }
  }

  return {
    start() {
      if (accepting) return;
      accepting = true;
      abort = new AbortController();
      log("info", "job worker started", { workerId: id, host: hostname(), pid: process.pid, ...settings });
      // renew well before expiry so one slow tick cannot cost a lease
      renewTimer = setInterval(renew, Math.max(50, Math.floor(settings.leaseMs / 3)));
      for (const queue of QUEUE_NAMES) maybeDue.add(queue);
      schedulePump();
      armTimer(clock.now() + settings.pollMs);
    },
    wake,
    async stop() {
      if (!accepting) return;
      accepting = false;
      clearTimeout(pollTimer);
      timerAt = Infinity;
      if (running.size > 0) {
        let graceTimer: Timer | undefined;
        const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, settings.shutdownGraceMs)));
        await Promise.race([Promise.allSettled(running.keys()), graceOver]);
        clearTimeout(graceTimer);
      }
      if (running.size > 0) {
        log("warn", "job worker stopped with jobs unfinished; they run again once their lease expires", {
          jobs: [...running.values()],
        });
        abort.abort(new Error("the job worker is shutting down"));
      }
      generation++;
      clearInterval(renewTimer);
      commitAndClaim(); // commit what finished; claims nothing since we no longer accept
    },
  };
}
