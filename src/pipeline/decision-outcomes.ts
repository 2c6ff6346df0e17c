/**
 * The kinds of dispatch decision a cascade records (`pipeline/runtime/decisions.ts`), in one
 * list the runtime validates filters against and the UI offers as filter choices:
 *
 * - `dispatched`: a run of the subscriber was enqueued;
 * - `join-pending`: the write was counted towards a `trigger all` join that still misses inputs;
 * - `join-fired`: the write completed a `trigger all` join: its run was enqueued;
 * - `debounce-scheduled`: the write opened a debounce window: a run was scheduled at its end;
 * - `debounced`: the write fell into an open debounce window (last write wins);
 * - `skipped`: nothing was started; the decision's `reason` says why;
 * - `freshness-run`: the freshness watchdog started a run of a stale script.
 *
 * @module
 */

/** Every decision kind. */
export const DECISION_OUTCOMES = [
  "dispatched",
  "join-pending",
  "join-fired",
  "debounce-scheduled",
  "debounced",
  "skipped",
  "freshness-run",
] as const;

/** What happened to one subscriber of one write (see the module comment). */
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];
