// Time source, injectable so tests can move time without sleeping.
/** one UTC day in milliseconds */
export const DAY_MS = 86_400_000;

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests drive by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}
  now() { return this.current; }
  set(ms: number) { this.current = ms; }
  advance(ms: number) { this.current += ms; }
}
