/**
 * Ending expired leases (a worker that stopped heartbeating: killed, frozen, cut off) so
 * their runs go on, and making each one visible: a `reclaim` span in the run's trace and
 * `sluice_leases_reclaimed_total{workflow,outcome}`. The worker's timer, the lane
 * supervisor's poll and the worker protocol all reclaim through here.
 */
import type { RetryDelay, Store } from "../store/types.js";
import { traceRunEvent } from "./tracing.js";

/** Where reclaims are counted (the engine's metrics). */
export interface ReclaimMetrics {
  reclaimed(workflow: string, outcome: "retry" | "failed"): void;
}

/** Runs reclaimed per call, at most. */
const BATCH = 500;

/**
 * Ends up to 500 expired leases (`Store.reclaimExpired`) and records each: `retry` when
 * another attempt is queued, `failed` when that was the run's last attempt. Returns the
 * ids reclaimed. Reading the runs back costs one read per reclaimed run, which is rare.
 */
export async function reclaimExpiredLeases(
  store: Store,
  retryDelay: RetryDelay,
  metrics: ReclaimMetrics | null | undefined,
): Promise<string[]> {
  const ids = await store.reclaimExpired(BATCH, retryDelay);
  for (const id of ids) {
    const run = await store.getRun(id).catch(() => null);
    if (!run) continue;
    const outcome = run.status === "failed" ? "failed" : "retry";
    metrics?.reclaimed(run.workflow, outcome);
    // The attempt whose lease expired: a retry has already moved the run on to the next one.
    const attempt = outcome === "retry" ? run.attempt - 1 : run.attempt;
    traceRunEvent("reclaim", { ...run, attempt }, outcome, outcome === "failed" ? run.error : null);
  }
  return ids;
}
