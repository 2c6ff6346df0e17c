import { describe, expect, it } from "vitest";
import { CLOCK_BACK_TOLERANCE_MS, reanchoredReadyAt } from "./clock-reanchor.js";

const HOUR = 3_600_000;
const now = 1_800_000_000_000;

describe("re-anchoring due times after the clock was set back", () => {
  it("keeps what was left of an engine-set delay (a retry's backoff, a sleep), counted from now", () => {
    // Written 1 h ahead: a 30 s backoff, a 10 min sleep.
    expect(
      reanchoredReadyAt({ readyAt: now + HOUR + 30_000, updatedAt: now + HOUR, createdAt: now, startedAt: now }, now),
    ).toBe(now + 30_000);
    expect(
      reanchoredReadyAt(
        { readyAt: now + HOUR + 600_000, updatedAt: now + HOUR, createdAt: now - HOUR, startedAt: now - HOUR },
        now,
      ),
    ).toBe(now + 600_000);
  });
  it("makes a run that was due at once when written (enqueued, re-queued, a cron tick's run) due now", () => {
    expect(
      reanchoredReadyAt({ readyAt: now + HOUR, updatedAt: now + HOUR, createdAt: now + HOUR, startedAt: null }, now),
    ).toBe(now);
    expect(
      reanchoredReadyAt({ readyAt: now + HOUR, updatedAt: now + HOUR + 5, createdAt: now, startedAt: now }, now),
    ).toBe(now);
  });
  it("keeps a runAt the enqueuer chose for a run not started yet: not before that wall-clock time", () => {
    expect(
      reanchoredReadyAt(
        { readyAt: now + 2 * HOUR, updatedAt: now + HOUR, createdAt: now + HOUR, startedAt: null },
        now,
      ),
    ).toBeNull();
  });
  it("leaves rows written by a clock within the tolerance (NTP skew), and runs already due", () => {
    const tol = CLOCK_BACK_TOLERANCE_MS;
    expect(
      reanchoredReadyAt({ readyAt: now + HOUR, updatedAt: now + tol, createdAt: now, startedAt: now }, now),
    ).toBeNull();
    expect(
      reanchoredReadyAt({ readyAt: now - 1, updatedAt: now + HOUR, createdAt: now, startedAt: now }, now),
    ).toBeNull();
    expect(
      reanchoredReadyAt({ readyAt: now + HOUR, updatedAt: now + tol + 1, createdAt: now, startedAt: now }, now),
    ).toBe(now + HOUR - tol - 1);
  });
});
