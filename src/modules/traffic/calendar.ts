// UTC day numbers: rollups, salts and stats ranges all count days as floor(ms / 86 400 000).
import { DAY_MS } from "../../platform/clock";

export function epochDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** 20454 → "2026-01-01" */
export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
