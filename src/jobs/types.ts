// The job queue's contract, shared by every feature that queues work (SPEC 2.4, 3.1).
// Implemented by src/jobs/queue.ts + worker.ts; reached through ctx.jobs.
export const QUEUE_NAMES = ["aiQueue", "seoQueue", "contentQueue"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
export type JobState = "waiting" | "delayed" | "active" | "completed" | "failed";

export interface EnqueueOptions {
  /** run no earlier than this many ms from now (state `delayed` until then) */
  delayMs?: number;
  /** higher runs first; default 0 */
  priority?: number;
  /** total attempts including the first; default 3 */
  attempts?: number;
  /** base of the exponential backoff between attempts, ms; default 1000 */
  backoffMs?: number;
}

/** What a handler or hook knows about the job it is called for. */
export interface JobInfo<D = unknown> {
  id: string;
  name: string;
  queue: QueueName;
  workspaceId: string;
  data: D;
}

export interface JobContext<D = unknown> extends JobInfo<D> {
  /** attempts made before this one */
  attemptsMade: number;
  /** 0–100; persisted so GET /job shows it while the job runs */
  updateProgress(progress: number): void;
  /** aborted when the worker shuts down past its grace period */
  signal: AbortSignal;
}

export type JobHandler<D = any, R = unknown> = (job: JobContext<D>) => Promise<R>;

/** A job that has failed for good, as its onFailed hook sees it. */
export interface FailedJob<D = unknown> extends JobInfo<D> {
  /** attempts made, the failed one included */
  attemptsMade: number;
  /** the failedReason stored with the job */
  reason: string;
}

export interface JobHandlerOptions<D = any> {
  /**
   * Called once when a job of this name fails for good, wherever that is decided: its last attempt
   * threw, it threw NonRetryableJobError, or its lease expired on its last attempt (its worker died,
   * so the handler never heard of it). Runs synchronously inside the transaction that records the
   * failure, so what it writes (a refund) commits together with it, exactly once. It must not
   * await. If it throws, its writes are rolled back, the error is logged and the job fails anyway.
   */
  onFailed?(job: FailedJob<D>): void;
}

/** SPEC 2.4, exactly the fields GET /v1/ai/generate/job/:jobId returns */
export interface JobView {
  jobId: string;
  name: string;
  state: JobState;
  progress: number;
  result: unknown;
  failedReason: string | null;
  attemptsMade: number;
  processedOn: number | null;
  finishedOn: number | null;
  data: unknown;
  queue: QueueName;
}

export interface JobQueue {
  enqueue<D>(queue: QueueName, name: string, workspaceId: string, data: D, opts?: EnqueueOptions): { jobId: string };
  /** the handler that runs jobs with this name; register at start-up, before the worker claims */
  register<D = any, R = unknown>(name: string, handler: JobHandler<D, R>, options?: JobHandlerOptions<D>): void;
  /** the job if it belongs to this workspace, else null (another workspace's job is "not found") */
  get(jobId: string, workspaceId: string): JobView | null;
}
