/** Wall-clock time in epoch milliseconds. Injected everywhere time matters so tests can control it. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests of pure time logic. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
  /** Jumps to an absolute time. */
  set(ms: number): void {
    this.current = ms;
  }
}
