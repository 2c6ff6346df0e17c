/**
 * A run's duration, one rule for every place that shows one (pure): the time it ran, from its
 * first start to its finish (or now), retries and their back-off included, time queued before
 * the first start left out; null before it starts. The run page's header and timeline, the Runs
 * table and the workflow's p50/p95 (`durationMs`, `finishedAt - startedAt`) all count this way.
 */
import type { ApiRun } from "../../../http/api-types";
import { between } from "./format";

/** See the module comment. */
export function runDuration(run: Pick<ApiRun, "startedAt" | "finishedAt">, now: number): number | null {
  return run.startedAt ? between(run.startedAt, run.finishedAt, now) : null;
}
