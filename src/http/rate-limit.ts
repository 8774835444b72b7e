// Fixed-window request counters kept in memory (one process owns the port). Good enough to stop a
// runaway client; not a billing meter.
import type { Clock } from "../platform/clock";

export interface RateLimitResult {
  ok: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string): RateLimitResult;
}

export function createRateLimiter(limit: number, windowMs: number, clock: Clock): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = clock.now();
  return {
    hit(key) {
      const now = clock.now();
      if (now - lastSweep > windowMs) {
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
        lastSweep = now;
      }
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      const ok = w.count <= limit;
      return { ok, remaining: Math.max(0, limit - w.count), retryAfterSeconds: ok ? 0 : (w.start + windowMs - now) / 1000 };
    },
  };
}
