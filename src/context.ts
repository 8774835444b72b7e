// What every feature gets from the composition root: config, the database, the clock, the
// logger, and hooks to run on shutdown. Services take the pieces they need from here.
import type { Config } from "./config";
import type { DB } from "./db";
import type { Clock } from "./platform/clock";
import type { Logger } from "./platform/log";

export interface AppContext {
  config: Config;
  db: DB;
  clock: Clock;
  log: Logger;
  /** register work to finish when the server stops (workers, schedules, buffered writes) */
  onShutdown(hook: () => Promise<void> | void): void;
}
