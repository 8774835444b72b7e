// The durable job queue behind ctx.jobs: enqueue / register / get (the JobQueue contract), plus
// starting and stopping the worker and the retention schedule that prunes finished jobs.
import { Cron } from "croner";
import type { Config } from "../config";
import type { DB } from "../db";
import { DAY_MS, type Clock } from "../platform/clock";
import type { Logger } from "../platform/log";
import { checkJobName, jobSettings, toJobView } from "./lifecycle";
import { enqueueJob, findJob, pruneJobs } from "./queue";
import type { JobQueue } from "./types";
import { createWorker, type RegisteredHandler } from "./worker";

export { NonRetryableJobError } from "./lifecycle";

/** hourly, off the top of the hour; retention is counted in days so this is plenty */
export const PRUNE_SCHEDULE = "17 * * * *";

export interface DurableJobQueue extends JobQueue {
  /** starts the worker loop and the retention schedule (serve does this when AIVIS_WORKER is on) */
  start(): void;
  /** stops claiming, lets running jobs finish within the grace period, stops the schedule */
  stop(): Promise<void>;
  /** deletes finished jobs past their retention; returns how many of each */
  prune(): { completed: number; failed: number };
}

export function createJobQueue(db: DB, clock: Clock, log: Logger, config: Config["worker"]): DurableJobQueue {
  const handlers = new Map<string, RegisteredHandler>();
  const worker = createWorker({ db, clock, log, settings: config, handlers });
  let pruneSchedule: Cron | undefined;

  function prune() {
    const now = clock.now();
    const pruned = pruneJobs(db, now - config.keepCompletedDays * DAY_MS, now - config.keepFailedDays * DAY_MS);
    if (pruned.completed || pruned.failed) log("info", "pruned finished jobs", pruned);
    return pruned;
  }

  return {
    enqueue(queue, name, workspaceId, data, opts) {
      const now = clock.now();
      const settings = jobSettings(queue, name, opts);
      const jobId = enqueueJob(db, now, { queue, name, workspaceId, data, settings });
      worker.wake(queue, now + settings.delayMs);
      return { jobId };
    },
    register(name, handler, options = {}) {
      checkJobName(name);
      if (handlers.has(name)) throw new Error(`a handler for job name "${name}" is already registered`);
      handlers.set(name, { run: handler, onFailed: options.onFailed } as RegisteredHandler);
    },
    get(jobId, workspaceId) {
      const row = findJob(db, jobId, workspaceId);
      return row ? toJobView(row, clock.now()) : null;
    },
    start() {
      worker.start();
      if (pruneSchedule) return;
      prune(); // a process restarted more often than hourly still prunes
      pruneSchedule = new Cron(PRUNE_SCHEDULE, { catch: (error) => log("error", "job pruning failed", { error: String(error) }) }, () => {
        prune();
      });
    },
    async stop() {
      pruneSchedule?.stop();
      pruneSchedule = undefined;
      await worker.stop();
    },
    prune,
  };
}
