/**
 * The due-run query of a claim: runnable runs in claim order (highest priority, then the
 * earliest `ready_at`, then the oldest), at most `limit`.
 *
 * One ORDER BY over every due run sorts the whole backlog on each claim: 10,000 timers
 * falling due together made every claim of a few free slots sort 10,000 rows, and a
 * history of parked runs made the planner walk them all. Instead, the distinct priorities
 * of claimable runs are found one index seek each (highest first), and each priority's due
 * runs are read from `runs_claim_order` in claim order, stopping at the limit: the cost
 * follows the runs returned (and skipped by the filter), not the runs due or parked.
 * With more distinct priorities than {@link MAX_LEVELS}, the single sorted query is used.
 */
import type { Statements } from "./statements.js";

/** Distinct priorities walked one by one; beyond that, one sorted query. */
export const MAX_LEVELS = 16;

const PARKED_OR_PENDING = "ready_at IS NOT NULL AND status IN ('pending', 'waiting')";

/** A due run: its row and concurrency key. */
export interface DueRun {
  seq: number;
  concurrency_key: string | null;
}

/**
 * Reads up to `limit` due runs in claim order. `filter` is extra SQL over `runs` (workflow,
 * queue, concurrency) with its parameters `params`; `now` is the claim's clock.
 */
export function dueRuns(s: Statements, filter: string, params: unknown[], now: number, limit: number): DueRun[] {
  const levels: number[] = [];
  let p = (
    s.get(`SELECT MAX(priority) AS p FROM runs INDEXED BY runs_claim_order WHERE ${PARKED_OR_PENDING}`).get() as {
      p: number | null;
    }
  ).p;
  const below = s.get(
    `SELECT MAX(priority) AS p FROM runs INDEXED BY runs_claim_order WHERE ${PARKED_OR_PENDING} AND priority < ?`,
  );
  while (p !== null && levels.length <= MAX_LEVELS) {
    levels.push(p);
    p = (below.get(p) as { p: number | null }).p;
  }
  if (levels.length > MAX_LEVELS) {
    return s
      .get(
        `SELECT seq, concurrency_key FROM runs WHERE ready_at <= ? AND ${PARKED_OR_PENDING} ${filter} ORDER BY priority DESC, ready_at, seq LIMIT ?`,
      )
      .all(now, ...params, limit) as DueRun[];
  }
  const level = s.get(
    `SELECT seq, concurrency_key FROM runs INDEXED BY runs_claim_order
     WHERE priority = ? AND ready_at <= ? AND ${PARKED_OR_PENDING} ${filter} ORDER BY priority DESC, ready_at, seq LIMIT ?`,
  );
  const out: DueRun[] = [];
  for (const priority of levels) {
    if (out.length >= limit) break;
    out.push(...(level.all(priority, now, ...params, limit - out.length) as DueRun[]));
  }
  return out;
}
