// When a website voice is fetched again: pure date arithmetic on epoch ms (UTC), no clock of its own.
import { DAY_MS } from "../../platform/clock";

export const FETCH_INTERVALS = ["once", "daily", "weekly", "monthly"] as const;
export type FetchInterval = (typeof FETCH_INTERVALS)[number];

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** The next refresh after `from`, or null for `once`. Monthly keeps the day of month, clamped (Jan 31 → Feb 28). */
export function nextFetchAt(interval: FetchInterval, from: number): number | null {
  switch (interval) {
    case "once":
      return null;
    case "daily":
      return from + DAY_MS;
    case "weekly":
      return from + 7 * DAY_MS;
    case "monthly": {
      const d = new Date(from);
      const year = d.getUTCFullYear() + (d.getUTCMonth() === 11 ? 1 : 0);
      const month = (d.getUTCMonth() + 1) % 12;
      const day = Math.min(d.getUTCDate(), daysInMonth(year, month));
      return Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
    }
  }
}

/** "Brand voice — 2026-03-14": the name a voice gets when none is sent (UTC date of creation). */
export function defaultVoiceName(now: number): string {
  return `Brand voice — ${new Date(now).toISOString().slice(0, 10)}`;
}
