/** Where the dev server reads the time from (epoch milliseconds). */
export interface Clock {
  now(): number;
}

/** The real time. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to, so tests of TTLs, rotation periods and lease expiry run without
 * waiting: advance it, then send any request (the server ticks every area before handling a request).
 */
export class ManualClock implements Clock {
  private current: number;

  constructor(startMs: number = Date.UTC(2025, 0, 1)) {
    if (!Number.isFinite(startMs)) throw new Error(`ManualClock: start time must be a finite number, got ${startMs}`);
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new Error(`ManualClock.advance: ms must be a finite number >= 0, got ${ms}`);
    }
    this.current += ms;
  }

  /** Jump to an absolute time; time never runs backwards. */
  set(ms: number): void {
    if (!Number.isFinite(ms) || ms < this.current) {
      throw new Error(`ManualClock.set: time must be >= the current time ${this.current}, got ${ms}`);
    }
    this.current = ms;
  }
}
