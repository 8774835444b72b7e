// Housekeeping that belongs to the process running the worker (pruning rows past their retention),
// on a croner schedule. The jobs' own pruning lives in createJobQueue, which has no AppContext.
import { Cron } from "croner";
import type { AppContext } from "../context";

/**
 * When this process runs the worker: runs `task` once now, so a process restarted more often than
 * the schedule still runs it, then on `schedule` until shutdown. A run never overlaps the previous
 * one, a failure is logged (`${what} failed`) and never thrown, and at shutdown `shouldStop` turns
 * true so a long run can end between steps. Returns the start-up run, for tests.
 */
export function scheduleMaintenance(
  ctx: Pick<AppContext, "config" | "log" | "onShutdown">,
  what: string,
  schedule: string,
  task: (shouldStop: () => boolean) => unknown,
): Promise<void> {
  if (!ctx.config.worker.enabled) return Promise.resolve();
  let stopped = false;
  const run = async () => {
    try {
      await task(() => stopped);
    } catch (err) {
      ctx.log("error", `${what} failed`, { error: err instanceof Error ? err.message : String(err) });
    }
  };
  const first = run();
  const tick = new Cron(schedule, { protect: true, unref: true }, run);
  ctx.onShutdown(() => {
    stopped = true;
    tick.stop();
  });
  return first;
}
