// The SQL state machine of src/jobs/queue.ts, driven with explicit times.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { jobSettings } from "../../src/jobs/lifecycle";
import {
  claimJobs,
  completeJob,
  enqueueJob,
  failJob,
  fenceOf,
  findJob,
  LEASE_EXPIRED_REASON,
  pruneJobs,
  recoverExpiredLeases,
  renewLeases,
  setJobProgress,
} from "../../src/jobs/queue";
import type { EnqueueOptions, QueueName } from "../../src/jobs/types";
import { type JobsDb, openJobsDb } from "../support/jobs";

const T0 = Date.UTC(2026, 0, 1);
const LEASE = 30_000;
let h: JobsDb;
beforeEach(() => (h = openJobsDb()));
afterEach(() => h.close());

function add(opts: EnqueueOptions = {}, queue: QueueName = "aiQueue", now = T0, workspaceId = "ws-a") {
  return enqueueJob(h.db, now, { queue, name: "ai_tool_content", workspaceId, data: { n: 1 }, settings: jobSettings(queue, "ai_tool_content", opts) });
}
const row = (id: string) => findJob(h.db, id, "ws-a")!;

describe("enqueue", () => {
  test("a new job is waiting, with its input and options stored", () => {
    const id = add({ priority: 5, attempts: 4, backoffMs: 250 });
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const r = row(id);
    expect(r).toMatchObject({ state: "waiting", queue: "aiQueue", workspace_id: "ws-a", priority: 5, max_attempts: 4, backoff_ms: 250 });
    expect(r).toMatchObject({ run_at: T0, created_at: T0, attempts_made: 0, progress: 0, processed_at: null, finished_at: null });
    expect(JSON.parse(r.data)).toEqual({ n: 1 });
  });
  test("ids sort by creation time", () => {
    const a = add({}, "aiQueue", T0);
    const b = add({}, "aiQueue", T0 + 1);
    const c = add({}, "aiQueue", T0 + 1);
    expect([c, a, b].sort()).toEqual([a, b, c]);
  });
  test("a delay makes it delayed until then", () => {
    const id = add({ delayMs: 5000 });
    expect(row(id)).toMatchObject({ state: "delayed", run_at: T0 + 5000 });
    expect(claimJobs(h.db, T0 + 4999, "aiQueue", "w1", LEASE, 10)).toEqual([]);
    expect(claimJobs(h.db, T0 + 5000, "aiQueue", "w1", LEASE, 10).map((j) => j.id)).toEqual([id]);
  });
  test("the workspace must exist", () => {
    expect(() => add({}, "aiQueue", T0, "no-such-workspace")).toThrow(/FOREIGN KEY/);
  });
});

describe("claim", () => {
  test("moves due jobs to active under a lease, at most `limit`, by priority then age", () => {
    const low = add({}, "aiQueue", T0);
    const high = add({ priority: 10 }, "aiQueue", T0 + 1);
    const low2 = add({}, "aiQueue", T0 + 2);
    const claimed = claimJobs(h.db, T0 + 10, "aiQueue", "w1", LEASE, 2);
    expect(claimed.map((j) => j.id).sort()).toEqual([low, high]); // ids sort by age: low is older
    for (const j of claimed) {
      expect(j).toMatchObject({ lease_owner: "w1", lease_expires_at: T0 + 10 + LEASE, processed_at: T0 + 10, attempts_made: 0 });
      expect(row(j.id).state).toBe("active");
    }
    expect(row(low2).state).toBe("waiting");
  });
  test("only the asked queue", () => {
    add({}, "seoQueue");
    expect(claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 10)).toEqual([]);
    expect(claimJobs(h.db, T0, "seoQueue", "w1", LEASE, 10)).toHaveLength(1);
  });
  test("a claimed job is not claimed again", () => {
    add();
    expect(claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 10)).toHaveLength(1);
    expect(claimJobs(h.db, T0, "aiQueue", "w2", LEASE, 10)).toEqual([]);
  });
});

describe("outcomes", () => {
  test("waiting → active → completed", () => {
    const id = add();
    const [job] = claimJobs(h.db, T0 + 1, "aiQueue", "w1", LEASE, 1);
    expect(setJobProgress(h.db, fenceOf(job), 40)).toBe(true);
    expect(row(id).progress).toBe(40);
    expect(completeJob(h.db, T0 + 9, fenceOf(job), '{"ok":true}')).toBe(true);
    expect(row(id)).toMatchObject({
      state: "completed",
      result: '{"ok":true}',
      progress: 100,
      attempts_made: 1,
      processed_at: T0 + 1,
      finished_at: T0 + 9,
      lease_owner: null,
      lease_expires_at: null,
    });
  });

  test("failures back off exponentially (delayed), then fail for good", () => {
    const id = add({ attempts: 3, backoffMs: 1000 });
    let [job] = claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    expect(failJob(h.db, T0 + 10, job, "boom 1", true)).toEqual({ state: "delayed", attemptsMade: 1, runAt: T0 + 1010 });
    expect(row(id)).toMatchObject({ state: "delayed", attempts_made: 1, run_at: T0 + 1010, failed_reason: null, finished_at: null, lease_owner: null });

    expect(claimJobs(h.db, T0 + 1009, "aiQueue", "w1", LEASE, 1)).toEqual([]);
    [job] = claimJobs(h.db, T0 + 1010, "aiQueue", "w1", LEASE, 1);
    expect(job.attempts_made).toBe(1);
    failJob(h.db, T0 + 1100, job, "boom 2", true);
    expect(row(id)).toMatchObject({ state: "delayed", attempts_made: 2, run_at: T0 + 1100 + 2000 });

    expect(claimJobs(h.db, T0 + 3099, "aiQueue", "w1", LEASE, 1)).toEqual([]);
    [job] = claimJobs(h.db, T0 + 3100, "aiQueue", "w1", LEASE, 1);
    expect(failJob(h.db, T0 + 3200, job, "boom 3", true)?.state).toBe("failed");
    expect(row(id)).toMatchObject({ state: "failed", attempts_made: 3, failed_reason: "boom 3", finished_at: T0 + 3200 });
    expect(claimJobs(h.db, T0 + 999_999, "aiQueue", "w1", LEASE, 1)).toEqual([]);
  });

  test("a non-retryable failure fails at once", () => {
    const id = add({ attempts: 5 });
    const [job] = claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    failJob(h.db, T0 + 1, job, "bad input", false);
    expect(row(id)).toMatchObject({ state: "failed", attempts_made: 1, failed_reason: "bad input" });
  });
});

describe("leases", () => {
  test("renewal extends only the owner's active leases", () => {
    const a = add();
    const b = add();
    claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    claimJobs(h.db, T0, "aiQueue", "w2", LEASE, 1);
    expect(renewLeases(h.db, T0 + 20_000, "w1", LEASE)).toBe(1);
    const byOwner = Object.fromEntries([row(a), row(b)].map((r) => [r.lease_owner, r.lease_expires_at]));
    expect(byOwner).toEqual({ w1: T0 + 20_000 + LEASE, w2: T0 + LEASE });
  });

  test("an expired lease puts the job back to waiting and counts the lost attempt", () => {
    const id = add({ attempts: 3 });
    claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    expect(recoverExpiredLeases(h.db, T0 + LEASE - 1)).toEqual([]);
    const recovered = { id, queue: "aiQueue" as const, name: "ai_tool_content", workspace_id: "ws-a", data: '{"n":1}' };
    expect(recoverExpiredLeases(h.db, T0 + LEASE)).toEqual([{ ...recovered, state: "waiting", attempts_made: 1 }]);
    expect(row(id)).toMatchObject({ state: "waiting", attempts_made: 1, run_at: T0 + LEASE, lease_owner: null, lease_expires_at: null });
    const [again] = claimJobs(h.db, T0 + LEASE, "aiQueue", "w2", LEASE, 1);
    expect(again).toMatchObject({ id, attempts_made: 1, lease_owner: "w2" });
  });

  test("an expired lease on the last attempt fails the job", () => {
    const id = add({ attempts: 1 });
    claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    // everything an onFailed hook needs, since no handler will hear of this failure
    const recovered = { id, queue: "aiQueue" as const, name: "ai_tool_content", workspace_id: "ws-a", data: '{"n":1}' };
    expect(recoverExpiredLeases(h.db, T0 + LEASE)).toEqual([{ ...recovered, state: "failed", attempts_made: 1 }]);
    expect(row(id)).toMatchObject({ state: "failed", attempts_made: 1, failed_reason: LEASE_EXPIRED_REASON, finished_at: T0 + LEASE });
  });

  test("a worker that lost its lease cannot write the outcome over the new attempt", () => {
    const id = add({ attempts: 3 });
    const [stale] = claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 1);
    recoverExpiredLeases(h.db, T0 + LEASE);
    const [current] = claimJobs(h.db, T0 + LEASE, "aiQueue", "w1", LEASE, 1); // even the same worker id
    expect(completeJob(h.db, T0 + LEASE + 1, fenceOf(stale), '"stale"')).toBe(false);
    expect(failJob(h.db, T0 + LEASE + 1, stale, "stale", true)).toBeNull();
    expect(setJobProgress(h.db, fenceOf(stale), 99)).toBe(false);
    expect(row(id)).toMatchObject({ state: "active", attempts_made: 1, progress: 0 });
    expect(completeJob(h.db, T0 + LEASE + 2, fenceOf(current), '"fresh"')).toBe(true);
    expect(row(id)).toMatchObject({ state: "completed", result: '"fresh"', attempts_made: 2 });
  });
});

describe("reads and retention", () => {
  test("findJob is scoped to the workspace", () => {
    const id = add();
    expect(findJob(h.db, id, "ws-a")?.id).toBe(id);
    expect(findJob(h.db, id, "ws-b")).toBeNull();
    expect(findJob(h.db, "nope", "ws-a")).toBeNull();
  });

  test("prune deletes finished jobs older than their retention, nothing else", () => {
    const DAY = 86_400_000;
    const oldDone = add();
    const oldFailed = add({ attempts: 1 });
    const recentDone = add();
    const waiting = add();
    const [a, b] = claimJobs(h.db, T0, "aiQueue", "w1", LEASE, 2);
    completeJob(h.db, T0, fenceOf(a), "null");
    failJob(h.db, T0, b, "x", true);
    const [c] = claimJobs(h.db, T0 + 5 * DAY, "aiQueue", "w1", LEASE, 1);
    completeJob(h.db, T0 + 5 * DAY, fenceOf(c), "null");
    const now = T0 + 8 * DAY;
    // completed kept 7 days, failed kept 30: only the old completed one goes
    expect(pruneJobs(h.db, now - 7 * DAY, now - 30 * DAY)).toEqual({ completed: 1, failed: 0 });
    expect(findJob(h.db, oldDone, "ws-a")).toBeNull();
    expect(findJob(h.db, recentDone, "ws-a")?.state).toBe("completed");
    expect(findJob(h.db, waiting, "ws-a")).not.toBeNull();
    expect(pruneJobs(h.db, now - 7 * DAY, now)).toEqual({ completed: 0, failed: 1 });
    expect(findJob(h.db, oldFailed, "ws-a")).toBeNull();
  });

  test("deleting a workspace deletes its jobs", () => {
    const id = add({}, "aiQueue", T0, "ws-b");
    h.db.query("DELETE FROM workspaces WHERE id = 'ws-b'").run();
    expect(findJob(h.db, id, "ws-b")).toBeNull();
  });
});
