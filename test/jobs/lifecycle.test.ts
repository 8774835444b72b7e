import { describe, expect, test } from "bun:test";
import {
  afterFailure,
  failureMessage,
  jobSettings,
  MAX_FAILED_REASON_LENGTH,
  MAX_RETRY_DELAY_MS,
  retryDelayMs,
  type StoredJob,
  toJobView,
} from "../../src/jobs/lifecycle";

describe("retryDelayMs", () => {
  test("doubles from the base after each failed attempt", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(1000, n))).toEqual([1000, 2000, 4000, 8000]);
  });
  test("is capped, even for absurd attempt counts", () => {
    expect(retryDelayMs(60_000, 40)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(1000, 5000)).toBe(MAX_RETRY_DELAY_MS);
  });
  test("a zero base retries at once", () => {
    expect(retryDelayMs(0, 3)).toBe(0);
  });
});

describe("afterFailure", () => {
  const job = { attemptsMade: 0, maxAttempts: 3, backoffMs: 500 };
  test("first failure of three attempts → delayed by the base backoff", () => {
    expect(afterFailure(job, 10_000, true)).toEqual({ state: "delayed", attemptsMade: 1, runAt: 10_500 });
  });
  test("second failure → delayed by twice the base", () => {
    expect(afterFailure({ ...job, attemptsMade: 1 }, 10_000, true)).toEqual({ state: "delayed", attemptsMade: 2, runAt: 11_000 });
  });
  test("last attempt → failed", () => {
    expect(afterFailure({ ...job, attemptsMade: 2 }, 10_000, true)).toEqual({ state: "failed", attemptsMade: 3, finishedAt: 10_000 });
  });
  test("a non-retryable error fails at once", () => {
    expect(afterFailure(job, 10_000, false)).toEqual({ state: "failed", attemptsMade: 1, finishedAt: 10_000 });
  });
});

describe("jobSettings", () => {
  test("defaults", () => {
    expect(jobSettings("aiQueue", "ai_tool_content")).toEqual({ delayMs: 0, priority: 0, maxAttempts: 3, backoffMs: 1000 });
  });
  test("passes valid options through", () => {
    expect(jobSettings("seoQueue", "x", { delayMs: 5, priority: -2, attempts: 7, backoffMs: 0 })).toEqual({
      delayMs: 5,
      priority: -2,
      maxAttempts: 7,
      backoffMs: 0,
    });
  });
  test.each([
    [{ attempts: 0 }],
    [{ attempts: 1.5 }],
    [{ delayMs: -1 }],
    [{ backoffMs: Number.NaN }],
    [{ priority: 1e12 }],
  ])("rejects %p", (opts) => {
    expect(() => jobSettings("aiQueue", "x", opts)).toThrow(RangeError);
  });
  test("rejects an unknown queue and an empty name", () => {
    expect(() => jobSettings("mailQueue", "x")).toThrow(/unknown queue/);
    expect(() => jobSettings("aiQueue", "")).toThrow(/job name/);
  });
});

describe("failureMessage", () => {
  test("takes the message of an Error, stringifies anything else", () => {
    expect(failureMessage(new Error("provider said no"))).toBe("provider said no");
    expect(failureMessage("plain")).toBe("plain");
  });
  test("cuts very long messages", () => {
    const m = failureMessage(new Error("x".repeat(10_000)));
    expect(m.length).toBe(MAX_FAILED_REASON_LENGTH);
    expect(m.endsWith("…")).toBe(true);
  });
});

describe("toJobView", () => {
  const row: StoredJob = {
    id: "01J",
    queue: "contentQueue",
    name: "ai_tool_content",
    data: '{"text":"hi"}',
    state: "completed",
    run_at: 100,
    attempts_made: 1,
    progress: 100,
    result: '{"text":"hello"}',
    failed_reason: null,
    processed_at: 150,
    finished_at: 200,
  };
  test("exactly the SPEC 2.4 fields, JSON decoded", () => {
    expect(toJobView(row, 1000)).toEqual({
      jobId: "01J",
      name: "ai_tool_content",
      state: "completed",
      progress: 100,
      result: { text: "hello" },
      failedReason: null,
      attemptsMade: 1,
      processedOn: 150,
      finishedOn: 200,
      data: { text: "hi" },
      queue: "contentQueue",
    });
  });
  test("a delayed job reads as waiting once its time has come", () => {
    const delayed = { ...row, state: "delayed", result: null, finished_at: null };
    expect(toJobView(delayed, 99).state).toBe("delayed");
    expect(toJobView(delayed, 100).state).toBe("waiting");
  });
  test("failedReason shows only in state failed", () => {
    expect(toJobView({ ...row, state: "failed", failed_reason: "boom" }, 1000).failedReason).toBe("boom");
    expect(toJobView({ ...row, state: "waiting", failed_reason: "stale" }, 1000).failedReason).toBeNull();
  });
});
