import type { Clock } from "../../src/core/clock.js";

/**
 * Real time plus an offset the test can push forward: everything keeps running in
 * real time, and `advance` makes long durable sleeps and approval timeouts due at once
 * (time skipping, as in Temporal's test server). Unlike `sluice/testing`'s `TestClock`, it
 * also moves back (tests of expired links and clock jumps do).
 */
export class SkippableClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}
