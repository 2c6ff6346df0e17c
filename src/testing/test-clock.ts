/**
 * The clock of a test engine: real time plus an offset a test pushes forward. Everything keeps
 * running in real time (timers, polling), and {@link TestClock.advance} makes durable sleeps,
 * `waitFor` timeouts and approval deadlines due at once (time skipping, as in Temporal's test
 * server).
 */
import type { Clock } from "../core/clock.js";
import { type Duration, toMillis } from "../core/duration.js";

/** Real time plus a skippable offset. */
export class TestClock implements Clock {
  private offset = 0;

  /** Epoch milliseconds: the real time plus every {@link advance} so far. */
  now(): number {
    return Date.now() + this.offset;
  }

  /**
   * Moves time forward by `duration` (`"1h"`, `{ days: 1 }`, a number of ms).
   * @throws InvalidDurationError for a negative or unparseable duration
   */
  advance(duration: Duration): void {
    this.offset += toMillis(duration);
  }

  /** How far this clock has been moved ahead of real time (ms). */
  get skipped(): number {
    return this.offset;
  }
}
