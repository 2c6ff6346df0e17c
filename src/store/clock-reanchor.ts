/**
 * Due times written by a clock that has since been set back (one rule, both stores).
 *
 * A store whose time is a process's wall clock (SQLite) records `ready_at` (when a run may be
 * claimed: a retry's backoff, a takeover's re-queue, a sleep's wake-up, a run enqueued to start
 * at once) and `updated_at` (when that was written) on that clock. If the clock ran ahead and is
 * set right, those times lie in the future by the size of the error, and the runs would wait
 * that long for nothing. Temporal and Restate measure timers on one server clock and say nothing
 * kinder; what they do promise is that a timer never fires before its duration has passed. This
 * rule keeps that promise and drops the wait: a run whose row was written more than
 * {@link CLOCK_BACK_TOLERANCE_MS} after "now" was written by a clock that is now behind, so its
 * due time is re-anchored to now plus what was left of its delay when it was written. It never
 * fires early: the real time since the delay began is at least the delay. A due time the enqueuer
 * chose (`runAt` of a run not started yet) is a wall-clock promise ("not before"), kept as is.
 *
 * The same test (written more than the tolerance after "now") finds a cron schedule's next tick
 * computed by a clock ahead: it is recomputed from the expression and the current time, else the
 * schedule would not fire for the length of the error ({@link reanchoredNextAt}).
 *
 * A lease taken or renewed by a clock that is ahead ends that much too late: were its worker to
 * die, its run would wait for the real clock to catch up. Every claim and renewal records the
 * lease's length (`lease_ms`) beside its end, so a lease ending more than its length (plus the
 * tolerance) after now was written by a clock ahead of this one ({@link leaseAheadAction}). Its
 * end cannot simply be moved to now plus its length: every process whose clock is ahead would see
 * that end as past and take the run over, its own worker's included, while that worker is alive.
 * So the rule watches instead: the first look notes when the lease was found ahead
 * (`lease_noticed_at`), every claim and renewal clears that note, and a lease still noted a whole
 * lease length later was not renewed for that long: its worker is gone, and the lease is ended
 * now. A live worker on the fast clock keeps its run untouched; a dead one's run is reclaimable
 * about one lease length (plus a reclaim pass) after it was first found, on the true clock. The
 * stores apply it where expired leases are reclaimed (every worker, every half lease), each
 * write a compare-and-set on the lease's end, so a renewal landing meanwhile wins.
 *
 * @module
 */

import { type CronSchedule, nextFireAfter } from "../core/cron.js";

/**
 * How far ahead of the store's clock a row's write time must be to count as written by a clock
 * since set back: well above the skew of clocks kept by NTP, well below the jumps that matter.
 */
export const CLOCK_BACK_TOLERANCE_MS = 60_000;

/** The columns of one claimable-later run the rule reads. */
export interface DueRunRow {
  readyAt: number;
  updatedAt: number;
  createdAt: number;
  /** Null until the run was first claimed. */
  startedAt: number | null;
}

/**
 * The run's new due time after a clock set back, or null to leave it (written by a clock not
 * ahead of `now`, already due, or a `runAt` the enqueuer chose).
 */
export function reanchoredReadyAt(row: DueRunRow, now: number, toleranceMs = CLOCK_BACK_TOLERANCE_MS): number | null {
  if (row.updatedAt <= now + toleranceMs || row.readyAt <= now) return null;
  if (row.startedAt === null && row.readyAt > row.createdAt) return null;
  return now + Math.max(0, row.readyAt - row.updatedAt);
}

/** The columns of one cron schedule the rule reads. */
export interface ScheduleAheadRow extends CronSchedule {
  nextAt: number | null;
  /** When the row was last written (a sync or a fired tick). */
  updatedAt: number;
}

/**
 * A cron schedule's new next tick after a clock set back, or null to leave it. A schedule written
 * by a clock now behind (its row more than the tolerance ahead of `now`) whose next tick lies after
 * the cron's next tick from `now` gets that tick: the expression decides, the current time counts
 * from. Ticks the fast clock fired early are not fired again when the real time reaches them (each
 * tick's run id is taken), and none fires before its wall-clock time.
 */
export function reanchoredNextAt(
  row: ScheduleAheadRow,
  now: number,
  toleranceMs = CLOCK_BACK_TOLERANCE_MS,
): number | null {
  if (row.nextAt === null || row.updatedAt <= now + toleranceMs || row.nextAt <= now) return null;
  const next = nextFireAfter(row, now);
  return next !== null && next < row.nextAt ? next : null;
}

/** The columns of one running run's lease the rule reads. */
export interface LeaseAheadRow {
  leaseExpiresAt: number;
  /** The lease's length as its claim or last renewal asked; null on rows leased before it was recorded. */
  leaseMs: number | null;
  /** When a reclaim found the lease ahead (the store's now then); null since its last claim or renewal. */
  noticedAt: number | null;
}

/** What to do with a lease: note that it was found ahead (`notice`, the time to note), or end it (`expiresAt`). */
export type LeaseAheadAction = { notice: number } | { expiresAt: number };

/**
 * The rule for a lease that may have been written by a clock ahead of `now`, or null to leave it.
 * A lease ending more than its length (a negative length, a lease ended on purpose, counts as 0)
 * plus the tolerance after `now` is noted (`notice: now`) unless already noted; once noted for a
 * whole lease length without a renewal clearing the note, it ends now (`expiresAt: now - 1`, so
 * the same reclaim takes it). A note from a clock ahead of this one (after `now`) is noted again.
 * Rows without a recorded length, and leases within their length plus the tolerance, are left.
 *
 * @example
 * leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: 30_000, noticedAt: null }, now); // { notice: now }
 * leaseAheadAction({ leaseExpiresAt: now + HOUR, leaseMs: 30_000, noticedAt: now - 30_000 }, now); // { expiresAt: now - 1 }
 */
export function leaseAheadAction(
  row: LeaseAheadRow,
  now: number,
  toleranceMs = CLOCK_BACK_TOLERANCE_MS,
): LeaseAheadAction | null {
  if (row.leaseMs === null) return null;
  const length = Math.max(0, row.leaseMs);
  if (row.leaseExpiresAt <= now + length + toleranceMs) return null;
  if (row.noticedAt === null || row.noticedAt > now) return { notice: now };
  return now - row.noticedAt >= length ? { expiresAt: now - 1 } : null;
}
