import { describe, expect, it } from "vitest";
import { CLOCK_BACK_TOLERANCE_MS, leaseAheadAction, reanchoredNextAt, reanchoredReadyAt } from "./clock-reanchor.js";

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

describe("re-anchoring a cron schedule's next tick after the clock was set back", () => {
  const minutely = { cron: "* * * * *", timezone: "UTC" };
  const at = Date.UTC(2027, 0, 15, 12, 0, 20); // 12:00:20
  it("recomputes the next tick from the expression and now, not from the clock that was ahead", () => {
    // Fired by a clock 1 h ahead at 13:00:05: next tick 13:01. Set right: the next minute, 12:01.
    expect(reanchoredNextAt({ ...minutely, nextAt: at + HOUR + 40_000, updatedAt: at + HOUR - 15_000 }, at)).toBe(
      Date.UTC(2027, 0, 15, 12, 1, 0),
    );
    // A daily 09:00 schedule synced while the clock was a day ahead: tomorrow's 09:00, not the day after.
    const daily = { cron: "0 9 * * *", timezone: "Europe/Paris" };
    const next = reanchoredNextAt({ ...daily, nextAt: Date.UTC(2027, 0, 17, 8), updatedAt: at + 24 * HOUR }, at);
    expect(next).toBe(Date.UTC(2027, 0, 16, 8)); // 09:00 in Paris (UTC+1 in January)
  });
  it("leaves schedules written within the tolerance, due now, or already at the cron's next tick", () => {
    const tol = CLOCK_BACK_TOLERANCE_MS;
    expect(reanchoredNextAt({ ...minutely, nextAt: at + HOUR, updatedAt: at + tol }, at)).toBeNull();
    expect(reanchoredNextAt({ ...minutely, nextAt: at - 1, updatedAt: at + HOUR }, at)).toBeNull();
    expect(reanchoredNextAt({ ...minutely, nextAt: null, updatedAt: at + HOUR }, at)).toBeNull();
    // A yearly schedule whose next tick is its next tick from now as well: nothing to move.
    const yearly = { cron: "0 0 1 1 *", timezone: "UTC" };
    expect(reanchoredNextAt({ ...yearly, nextAt: Date.UTC(2028, 0, 1), updatedAt: at + HOUR }, at)).toBeNull();
  });
  it("never moves a tick earlier than the cron's next tick from now (nothing fires early)", () => {
    const next = reanchoredNextAt({ ...minutely, nextAt: at + HOUR, updatedAt: at + HOUR }, at)!;
    expect(next).toBeGreaterThan(at);
    expect(next).toBe(Date.UTC(2027, 0, 15, 12, 1, 0));
  });
});

describe("a lease written by a clock ahead", () => {
  const tol = CLOCK_BACK_TOLERANCE_MS;
  const L = 30_000;
  it("is noted when first found ending more than its length plus the tolerance after now", () => {
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR + L, leaseMs: L, noticedAt: null }, now)).toEqual({
      notice: now,
    });
    expect(leaseAheadAction({ leaseExpiresAt: now + L + tol + 1, leaseMs: L, noticedAt: null }, now)).toEqual({
      notice: now,
    });
  });
  it("is ended once noted a whole lease length ago (no renewal cleared the note), not before", () => {
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: L, noticedAt: now - L }, now)).toEqual({
      expiresAt: now - 1,
    });
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: L, noticedAt: now - L + 1 }, now)).toBeNull();
    // A note written by a clock ahead of this one is taken again from now.
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: L, noticedAt: now + HOUR }, now)).toEqual({
      notice: now,
    });
  });
  it("leaves a lease within its length plus the tolerance (renewed on this clock, or one within NTP's skew)", () => {
    expect(leaseAheadAction({ leaseExpiresAt: now + L, leaseMs: L, noticedAt: null }, now)).toBeNull();
    expect(leaseAheadAction({ leaseExpiresAt: now + L + tol, leaseMs: L, noticedAt: null }, now)).toBeNull();
    expect(leaseAheadAction({ leaseExpiresAt: now + L + tol, leaseMs: L, noticedAt: now - HOUR }, now)).toBeNull();
    // A long lease renewed on this clock: its end is far out, but not beyond its own length.
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: HOUR, noticedAt: null }, now)).toBeNull();
    expect(leaseAheadAction({ leaseExpiresAt: now - 1, leaseMs: L, noticedAt: null }, now)).toBeNull();
  });
  it("leaves rows leased before the length was recorded", () => {
    expect(leaseAheadAction({ leaseExpiresAt: now + 2 * HOUR, leaseMs: null, noticedAt: now - HOUR }, now)).toBeNull();
  });
  it("counts a lease ended on purpose (negative length) as 0 long: ended as soon as noted", () => {
    // Ended by a clock 1 h ahead (`releaseExternalWorker` renews with -1 ms).
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR - 1, leaseMs: -1, noticedAt: null }, now)).toEqual({
      notice: now,
    });
    expect(leaseAheadAction({ leaseExpiresAt: now + HOUR - 1, leaseMs: -1, noticedAt: now }, now)).toEqual({
      expiresAt: now - 1,
    });
  });
});
