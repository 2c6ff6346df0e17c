/** Outcome figures of a workflow's runs (pure). */
import type { RunRecord } from "../store/types.js";
import type { ApiWorkflowStats } from "./api-types.js";

/** The `p`-th percentile (0–100) of ascending `sorted` values, nearest-rank; null when empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** How many unfinished runs are active (running or waiting), queued (pending, due) and scheduled (pending, due later). */
export interface Unfinished {
  active: number;
  queued: number;
  scheduled: number;
}

/**
 * Sorts unfinished runs as the Runs page does: `running` and `waiting` are active (its Running
 * and Waiting filters); a `pending` run is queued, or scheduled when its ready time (a `runAt`,
 * a retry's back-off) is after `now`, and counts as neither active nor running.
 */
export function unfinishedCounts(runs: readonly RunRecord[], now: number): Unfinished {
  const counts: Unfinished = { active: 0, queued: 0, scheduled: 0 };
  for (const r of runs) {
    if (r.status === "running" || r.status === "waiting") counts.active++;
    else if (r.status === "pending") {
      if (r.readyAt !== null && r.readyAt > now) counts.scheduled++;
      else counts.queued++;
    }
  }
  return counts;
}

/** Success rate and p50/p95 duration of finished runs, plus the counts of unfinished ones. */
export function workflowStats(finished: readonly RunRecord[], unfinished: Unfinished): ApiWorkflowStats {
  let succeeded = 0;
  let failed = 0;
  let cancelled = 0;
  const durations: number[] = [];
  for (const r of finished) {
    if (r.status === "succeeded") succeeded++;
    else if (r.status === "failed") failed++;
    else if (r.status === "cancelled") cancelled++;
    else continue;
    if (r.status !== "cancelled" && r.startedAt !== null && r.finishedAt !== null)
      durations.push(r.finishedAt - r.startedAt);
  }
  durations.sort((a, b) => a - b);
  return {
    sample: succeeded + failed + cancelled,
    succeeded,
    failed,
    cancelled,
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    p50DurationMs: percentile(durations, 50),
    p95DurationMs: percentile(durations, 95),
    ...unfinished,
  };
}
