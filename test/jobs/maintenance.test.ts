import { expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { scheduleMaintenance } from "../../src/jobs/maintenance";

function context(env: Record<string, string> = {}) {
  const hooks: (() => unknown)[] = [];
  const logs: { level: string; msg: string; fields?: unknown }[] = [];
  const ctx = {
    config: loadConfig(env),
    log: (level: string, msg: string, fields?: unknown) => void logs.push({ level, msg, fields }),
    onShutdown: (hook: () => unknown) => void hooks.push(hook),
  };
  return { ctx, logs, shutdown: () => hooks.forEach((h) => h()) };
}

test("runs at start-up; a failure is logged under its name, never thrown", async () => {
  const { ctx, logs, shutdown } = context();
  let runs = 0;
  await scheduleMaintenance(ctx, "widget pruning", "0 0 1 1 *", () => {
    runs++;
    throw new Error("disk on fire");
  });
  shutdown();
  expect(runs).toBe(1);
  expect(logs).toEqual([{ level: "error", msg: "widget pruning failed", fields: { error: "disk on fire" } }]);
});

test("runs on its schedule until shutdown, which tells a running task to stop", async () => {
  const { ctx, shutdown } = context();
  const seen: boolean[] = [];
  let stop: () => boolean = () => false;
  await scheduleMaintenance(ctx, "ticking", "* * * * * *", (shouldStop) => {
    stop = shouldStop;
    seen.push(shouldStop());
  });
  while (seen.length < 2) await Bun.sleep(50); // the every-second schedule fires
  shutdown();
  expect(stop()).toBe(true);
  const runs = seen.length;
  await Bun.sleep(1100);
  expect(seen.length).toBe(runs);
  expect(seen.every((s) => s === false)).toBe(true);
});

test("does nothing in a process that does not run the worker", async () => {
  const { ctx } = context({ AIVIS_WORKER: "false" });
  let runs = 0;
  await scheduleMaintenance(ctx, "nothing", "* * * * * *", () => runs++);
  await Bun.sleep(1100);
  expect(runs).toBe(0);
});
