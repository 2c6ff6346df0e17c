/**
 * How both stores read `sluice logs --since` without an index on the lines' time: a line
 * printed at or after `since` belongs to a run that had not finished by then, so it is
 * either still unfinished or finished at or after `since` (`runs_by_status`, on SQLite
 * `runs_active`; `runs_finished`). The first line of each such run (`logs_by_run`) bounds the scan of
 * the log from below: the newest lines are read back only down to that bound, instead of
 * through the whole log when fewer than the limit match (see {@link LOG_SINCE_MAX_RUNS}).
 *
 * A line's time is the worker's clock, a run's finish the store's; {@link LOG_SINCE_SLACK_MS}
 * takes runs that finished a little before `since` too, so clock skew between the two
 * does not hide lines.
 */

/**
 * Above this many runs that can have printed since `since`, the bound is not worth its
 * cost (one index seek per run): so many runs in the window mean many recent lines, and
 * reading the log back from its newest line reaches the limit quickly without a bound.
 */
export const LOG_SINCE_MAX_RUNS = 5_000;

/** Runs that finished up to this long before `since` are still searched (clock skew between workers and the store). */
export const LOG_SINCE_SLACK_MS = 5 * 60_000;

/** True when the `since` bound applies: a `since` without a run (which has its own index) and not following. */
export function boundsLogScan(filter: { since?: number; runId?: string; afterSeq?: number }): boolean {
  return filter.since !== undefined && filter.runId === undefined && filter.afterSeq === undefined;
}
