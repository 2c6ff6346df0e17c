/**
 * Status conditions written so that SQLite's planner can use the partial status indexes of
 * migration 10 (`runs_active`, `runs_unsuccessful`): a partial index serves a query only when
 * the query's WHERE visibly implies the index's predicate, which a bound parameter or a
 * `json_each` list never does. Statuses are therefore written into the SQL as literals, taken
 * only from the fixed list below (never from the caller's text).
 */
import type { RunStatus } from "../types.js";

const STATUSES: readonly RunStatus[] = ["pending", "running", "waiting", "succeeded", "failed", "cancelled"];

/** Queued, running or parked: `runs_active`'s predicate, word for word. */
export const ACTIVE = "(status = 'pending' OR status = 'running' OR status = 'waiting')";

/** `status = '<status>'` for a known status. */
export function statusIs(status: RunStatus): string {
  return `status = '${status}'`;
}

/**
 * The index to read runs of one status through: `runs_active` or `runs_unsuccessful` (named, as
 * the planner of an analysed table may otherwise walk every run of a workflow to find a few
 * queued or failed ones), none for succeeded runs (the common case: the table newest first).
 */
export function statusIndex(status: RunStatus): string {
  if (status === "succeeded") return "";
  return status === "failed" || status === "cancelled" ? " INDEXED BY runs_unsuccessful" : " INDEXED BY runs_active";
}

/** The known statuses among `wanted`, each once, in a fixed order (unknown ones match no run). */
export function knownStatuses(wanted: RunStatus | readonly RunStatus[]): RunStatus[] {
  const list: readonly string[] = Array.isArray(wanted) ? wanted : [wanted];
  return STATUSES.filter((s) => list.includes(s));
}
