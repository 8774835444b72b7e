// The SQL of the jobs table: enqueue, atomic batch claim, outcomes fenced by the lease, lease
// renewal, recovery of expired leases, retention pruning. Synchronous; the caller passes the time.
import type { DB } from "../db";
import { newId } from "../platform/ids";
import { afterFailure, type FailureOutcome, type JobSettings, type StoredJob } from "./lifecycle";
import type { QueueName } from "./types";

export interface JobRow extends StoredJob {
  queue: QueueName;
  workspace_id: string;
  priority: number;
  max_attempts: number;
  backoff_ms: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
}

/** What a claim returns: everything the worker needs to run the job and write its outcome. */
export type ClaimedJob = Pick<
  JobRow,
  | "id"
  | "queue"
  | "name"
  | "workspace_id"
  | "data"
  | "priority"
  | "run_at"
  | "attempts_made"
  | "max_attempts"
  | "backoff_ms"
  | "lease_owner"
  | "lease_expires_at"
  | "processed_at"
>;

/**
 * Who may write a running job's outcome: the worker holding the lease for this attempt. A worker
 * that lost its lease (expired and recovered elsewhere) matches no row, so its late write is a no-op.
 */
export interface LeaseFence {
  id: string;
  owner: string;
  attemptsMade: number;
}

/** A job the sweeper took back from a dead worker: waiting again, or failed when that was its last attempt. */
export type RecoveredJob = Pick<JobRow, "id" | "queue" | "name" | "workspace_id" | "data" | "attempts_made"> & {
  state: "waiting" | "failed";
};

export const LEASE_EXPIRED_REASON = "lease expired: the worker stopped or crashed while running the job";

const FENCE = "id = $id AND state = 'active' AND lease_owner = $owner AND attempts_made = $attemptsMade";

function prepare(db: DB) {
  return {
    insert: db.prepare(
      `INSERT INTO jobs (id, queue, name, workspace_id, data, state, priority, run_at, max_attempts, backoff_ms, created_at)
       VALUES ($id, $queue, $name, $workspaceId, $data, $state, $priority, $runAt, $maxAttempts, $backoffMs, $now)`,
    ),
    // `+$queue` and `$limit + 0`: with a bare parameter in the indexed equality or the LIMIT, the
    // bundled SQLite (3.54) plans the statement again on every run, as costly as a fresh prepare
    // (claim-and-complete tick 150 → 110 µs); wrapped, the plan is made once and the index still serves it.
    claim: db.prepare<ClaimedJob, any>(
      `UPDATE jobs SET state = 'active', lease_owner = $owner, lease_expires_at = $leaseUntil, processed_at = $now
       WHERE id IN (
         SELECT id FROM jobs
         WHERE queue = +$queue AND state IN ('waiting', 'delayed') AND run_at <= $now
         ORDER BY priority DESC, run_at, id
         LIMIT $limit + 0
       )
       RETURNING id, queue, name, workspace_id, data, priority, run_at, attempts_made, max_attempts, backoff_ms,
         lease_owner, lease_expires_at, processed_at`,
    ),
    complete: db.prepare(
      `UPDATE jobs SET state = 'completed', result = $result, progress = 100, attempts_made = attempts_made + 1,
         finished_at = $now, lease_owner = NULL, lease_expires_at = NULL
       WHERE ${FENCE}`,
    ),
    fail: db.prepare(
      `UPDATE jobs SET state = $state, attempts_made = $nextAttempts, run_at = $runAt, failed_reason = $reason,
         finished_at = $finishedAt, lease_owner = NULL, lease_expires_at = NULL
       WHERE ${FENCE}`,
    ),
    progress: db.prepare(`UPDATE jobs SET progress = $progress WHERE ${FENCE}`),
    renew: db.prepare("UPDATE jobs SET lease_expires_at = $leaseUntil WHERE state = 'active' AND lease_owner = $owner"),
    recover: db.prepare<RecoveredJob, any>(
      `UPDATE jobs SET
         state = CASE WHEN attempts_made + 1 >= max_attempts THEN 'failed' ELSE 'waiting' END,
         failed_reason = CASE WHEN attempts_made + 1 >= max_attempts THEN $reason ELSE NULL END,
         finished_at = CASE WHEN attempts_made + 1 >= max_attempts THEN $now ELSE NULL END,
         attempts_made = attempts_made + 1,
         run_at = $now, lease_owner = NULL, lease_expires_at = NULL
       WHERE state = 'active' AND lease_expires_at <= $now
       RETURNING id, state, queue, name, workspace_id, data, attempts_made`,
    ),
    // ids sort by creation time: everything finished before the cutoff lies before this id
    firstCreatedSince: db.prepare<{ id: string }, any>("SELECT id FROM jobs WHERE created_at >= $since ORDER BY id LIMIT 1"),
    prune: db.prepare("DELETE FROM jobs WHERE id < $bound AND state = $state AND finished_at < $before"),
    find: db.prepare<JobRow, any>("SELECT * FROM jobs WHERE id = $id AND workspace_id = $workspaceId"),
  };
}

// prepared once per database: on the hot path, statement lookup costs as much as the statement
const prepared = new WeakMap<DB, ReturnType<typeof prepare>>();
function statements(db: DB) {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = prepare(db)));
  return s;
}

export function fenceOf(job: ClaimedJob): LeaseFence {
  return { id: job.id, owner: job.lease_owner!, attemptsMade: job.attempts_made };
}

export function enqueueJob(
  db: DB,
  now: number,
  job: { queue: QueueName; name: string; workspaceId: string; data: unknown; settings: JobSettings },
): string {
  const id = newId(now);
  const { delayMs, priority, maxAttempts, backoffMs } = job.settings;
  statements(db).insert.run({
    id,
    queue: job.queue,
    name: job.name,
    workspaceId: job.workspaceId,
    data: JSON.stringify(job.data ?? null),
    state: delayMs > 0 ? "delayed" : "waiting",
    priority,
    runAt: now + delayMs,
    maxAttempts,
    backoffMs,
    now,
  });
  return id;
}

/** Moves up to `limit` due jobs of one queue (by priority, then due time) to active under this owner's lease, in one statement. */
export function claimJobs(db: DB, now: number, queue: QueueName, owner: string, leaseMs: number, limit: number): ClaimedJob[] {
  return statements(db).claim.all({ owner, leaseUntil: now + leaseMs, now, queue, limit });
}

export function completeJob(db: DB, now: number, fence: LeaseFence, resultJson: string): boolean {
  return statements(db).complete.run({ ...fence, result: resultJson, now }).changes === 1;
}

/** Records a failed attempt: `delayed` until the backoff is over, or `failed` when attempts are spent. */
export function failJob(db: DB, now: number, job: ClaimedJob, reason: string, retryable: boolean): FailureOutcome | null {
  const next = afterFailure({ attemptsMade: job.attempts_made, maxAttempts: job.max_attempts, backoffMs: job.backoff_ms }, now, retryable);
  const changes = statements(db).fail.run({
    ...fenceOf(job),
    state: next.state,
    nextAttempts: next.attemptsMade,
    runAt: next.state === "delayed" ? next.runAt : job.run_at,
    reason: next.state === "failed" ? reason : null,
    finishedAt: next.state === "failed" ? next.finishedAt : null,
  }).changes;
  return changes === 1 ? next : null;
}

export function setJobProgress(db: DB, fence: LeaseFence, progress: number): boolean {
  return statements(db).progress.run({ ...fence, progress }).changes === 1;
}

/** Extends the lease of every job this owner is running. */
export function renewLeases(db: DB, now: number, owner: string, leaseMs: number): number {
  return statements(db).renew.run({ owner, leaseUntil: now + leaseMs }).changes;
}

/**
 * The sweeper: an active job whose lease ran out belongs to a worker that died or stopped. The
 * lost attempt counts (so a job that crashes its worker cannot loop forever); the job goes back to
 * waiting, or to failed when that was its last attempt.
 */
export function recoverExpiredLeases(db: DB, now: number): RecoveredJob[] {
  return statements(db).recover.all({ now, reason: LEASE_EXPIRED_REASON });
}

/** Deletes completed jobs finished before `completedBefore` and failed ones before `failedBefore`. */
export function pruneJobs(db: DB, completedBefore: number, failedBefore: number): { completed: number; failed: number } {
  const { firstCreatedSince, prune } = statements(db);
  const pruneState = (state: "completed" | "failed", before: number) => {
    // a job finished before the cutoff was created before it; "~" sorts after every id
    const bound = firstCreatedSince.get({ since: before })?.id ?? "~";
    return prune.run({ bound, state, before }).changes;
  };
  return { completed: pruneState("completed", completedBefore), failed: pruneState("failed", failedBefore) };
}

/** The job if it belongs to this workspace; another workspace's job is not found. */
export function findJob(db: DB, id: string, workspaceId: string): JobRow | null {
  return statements(db).find.get({ id, workspaceId });
}
