// What every feature gets from the composition root: config, the database, the clock, the
// logger, and hooks to run on shutdown. Services take the pieces they need from here.
import type { Config } from "./config";
import type { DB } from "./db";
import type { Clock } from "./platform/clock";
import type { Logger } from "./platform/log";
import type { JobQueue } from "./jobs/types";
import type { AiProviders } from "./ai/types";

export interface AppContext {
  config: Config;
  db: DB;
  clock: Clock;
  log: Logger;
  /** the durable job queue (src/jobs) */
  jobs: JobQueue;
  /** AI providers by model id (src/ai) */
  ai: AiProviders;
  /** register work to finish when the server stops (workers, schedules, buffered writes) */
  onShutdown(hook: () => Promise<void> | void): void;
}
