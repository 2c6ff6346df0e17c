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
 * schedule would not fire for the length of the error ({@link reanchoredNextAt}). A lease taken by
 * such a clock is not re-anchored: a renewal does not record when it ran nor the lease's length,
 * so a lease renewed on the right clock after a claim on the fast one cannot be told from one
 * written ahead, and shortening it would hand a live worker's run to another (see
 * docs/RELIABILITY.md).
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
