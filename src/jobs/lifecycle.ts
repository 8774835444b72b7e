// Pure rules of a job's life, no I/O: enqueue option defaults and bounds, the exponential retry
// delay, where a failed attempt leads, and how a stored row reads as SPEC 2.4.
import { type EnqueueOptions, type JobState, type JobView, QUEUE_NAMES, type QueueName } from "./types";

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 1000;
export const MAX_ATTEMPTS = 100;
/** no retry waits longer than this, however many attempts came before */
export const MAX_RETRY_DELAY_MS = 24 * 3_600_000;
export const MAX_DELAY_MS = 365 * 86_400_000;
export const MAX_JOB_NAME_LENGTH = 100;
/** failure messages are cut here so one noisy error cannot bloat the table */
export const MAX_FAILED_REASON_LENGTH = 2000;

/** Thrown by a handler when retrying cannot help (bad input, missing configuration): the job fails at once. */
export class NonRetryableJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NonRetryableJobError";
  }
}

export interface JobSettings {
  delayMs: number;
  priority: number;
  maxAttempts: number;
  backoffMs: number;
}

function integerIn(label: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`job option ${label} must be an integer between ${min} and ${max}, got ${value}`);
  }
  return value;
}

export function checkJobName(name: string): void {
  if (name.length === 0 || name.length > MAX_JOB_NAME_LENGTH) {
    throw new RangeError(`job name must be 1 to ${MAX_JOB_NAME_LENGTH} characters`);
  }
}

/** Validates what a caller passes to enqueue; a bad value is a programming error, so it throws. */
export function jobSettings(queue: string, name: string, opts: EnqueueOptions = {}): JobSettings {
  if (!(QUEUE_NAMES as readonly string[]).includes(queue)) {
    throw new RangeError(`unknown queue "${queue}"; expected one of ${QUEUE_NAMES.join(", ")}`);
  }
  checkJobName(name);
  return {
    delayMs: integerIn("delayMs", opts.delayMs, 0, 0, MAX_DELAY_MS),
    priority: integerIn("priority", opts.priority, 0, -1_000_000, 1_000_000),
    maxAttempts: integerIn("attempts", opts.attempts, DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS),
    backoffMs: integerIn("backoffMs", opts.backoffMs, DEFAULT_BACKOFF_MS, 0, MAX_RETRY_DELAY_MS),
  };
}

/** Wait before the next attempt, after `attemptsMade` attempts have failed: backoff, 2×, 4×, … capped. */
export function retryDelayMs(backoffMs: number, attemptsMade: number): number {
  const exponent = Math.max(0, attemptsMade - 1);
  // 2^exponent overflows to Infinity long before it matters; the cap keeps it finite
  return Math.min(backoffMs * 2 ** exponent, MAX_RETRY_DELAY_MS);
}

export type FailureOutcome =
  | { state: "delayed"; attemptsMade: number; runAt: number }
  | { state: "failed"; attemptsMade: number; finishedAt: number };

/** Where a failed attempt leads: another try after the backoff, or failed for good. */
export function afterFailure(
  job: { attemptsMade: number; maxAttempts: number; backoffMs: number },
  now: number,
  retryable: boolean,
): FailureOutcome {
  const attemptsMade = job.attemptsMade + 1;
  if (retryable && attemptsMade < job.maxAttempts) {
    return { state: "delayed", attemptsMade, runAt: now + retryDelayMs(job.backoffMs, attemptsMade) };
  }
  return { state: "failed", attemptsMade, finishedAt: now };
}

export function failureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  return message.length > MAX_FAILED_REASON_LENGTH ? message.slice(0, MAX_FAILED_REASON_LENGTH - 1) + "…" : message;
}

/** The columns toJobView reads (a row of the jobs table). */
export interface StoredJob {
  id: string;
  queue: string;
  name: string;
  data: string;
  state: string;
  run_at: number;
  attempts_made: number;
  progress: number;
  result: string | null;
  failed_reason: string | null;
  processed_at: number | null;
  finished_at: number | null;
}

/**
 * SPEC 2.4. A retry whose wait is over reads as `waiting` (it is queued, not started); failedReason
 * is only set once the job has failed for good.
 */
export function toJobView(row: StoredJob, now: number): JobView {
  const state = (row.state === "delayed" && row.run_at <= now ? "waiting" : row.state) as JobState;
  return {
    jobId: row.id,
    name: row.name,
    state,
    progress: row.progress,
    result: row.result === null ? null : JSON.parse(row.result),
    failedReason: row.state === "failed" ? row.failed_reason : null,
    attemptsMade: row.attempts_made,
    processedOn: row.processed_at,
    finishedOn: row.finished_at,
    data: JSON.parse(row.data),
    queue: row.queue as QueueName,
  };
}
