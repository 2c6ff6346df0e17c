/**
 * Ending expired leases (a worker that stopped heartbeating: killed, frozen, cut off) and
 * released ones (a worker known gone: its process exited, or it stopped after its drain
 * timeout) so their runs go on, and making each one visible: a `reclaim` span in the run's
 * trace and `sluice_leases_reclaimed_total{workflow,outcome,cause}`. The worker's timer, the
 * lane supervisor's poll and the worker protocol all reclaim through here.
 */
import type { EngineEvents } from "../engine/events.js";
import { describeLeaseRelease, type LeaseRelease, releaseLeaseMs, releaseOf } from "../store/run-errors.js";
import type { Command, CommandResult, Lease, RetryDelay, RunRecord, Store } from "../store/types.js";
import { traceRunEvent } from "./tracing.js";

/** Where reclaims are counted (the engine's metrics). */
export interface ReclaimMetrics {
  /** `cause`: `expired` (the lease ran out) or `released` (its worker was known gone). */
  reclaimed(workflow: string, outcome: "retry" | "failed", cause: "expired" | "released"): void;
}

/** Runs reclaimed per call, at most. */
const BATCH = 500;

/** One expired or released lease ended: the run as it stood right after, and what became of it. */
export interface ReclaimedRun {
  run: RunRecord;
  /** `retry`: another attempt is queued; `failed`: that was the run's last attempt. */
  outcome: "retry" | "failed";
  /** The attempt whose lease ended. */
  attempt: number;
  /** Why its claim was released before its lease ran out (the stored `LEASE_RELEASED` error's reason); null: it expired. */
  released: LeaseRelease | null;
}

/**
 * Ends up to 500 expired (or released) leases (`Store.reclaimExpired`), records each (span, metric) and
 * announces it (`reclaimed`: printed by `sluice worker`/`dev`, seen by waiting handles and the
 * UI's feed). Returns the runs reclaimed, for the caller's log (every run reclaimed, also one
 * deleted since: then without its record).
 */
export async function reclaimExpiredLeases(
  store: Store,
  retryDelay: RetryDelay,
  metrics: ReclaimMetrics | null | undefined,
  events: EngineEvents,
): Promise<{ ids: string[]; runs: ReclaimedRun[] }> {
  const ids = await store.reclaimExpired(BATCH, retryDelay);
  const runs: ReclaimedRun[] = [];
  if (ids.length === 0) return { ids, runs };
  const byId = new Map((await store.getRuns(ids).catch(() => [])).map((r) => [r.id, r]));
  for (const id of ids) {
    const run = byId.get(id);
    if (!run) continue;
    const outcome = run.status === "failed" ? "failed" : "retry";
    // What the store wrote says whether the lease expired or was released (store/run-errors.ts).
    const released = releaseOf(run.error);
    metrics?.reclaimed(run.workflow, outcome, released ? "released" : "expired");
    // A retry has already moved the run on to its next attempt.
    const attempt = outcome === "retry" ? run.attempt - 1 : run.attempt;
    traceRunEvent("reclaim", { ...run, attempt }, outcome, outcome === "failed" ? run.error : null);
    runs.push({ run, outcome, attempt, released });
  }
  for (const id of ids) events.emit("reclaimed", id);
  return { ids, runs };
}

/** One line for an operator's log: which run's lease expired or was released, and what happens next. */
export function describeReclaim(r: ReclaimedRun): string {
  const ended = r.released
    ? `attempt ${r.attempt} was released (${describeLeaseRelease(r.released)})`
    : `the lease of attempt ${r.attempt} expired (its worker stopped heartbeating)`;
  const what = `run ${r.run.id} (${r.run.workflow}): ${ended}`;
  return r.outcome === "retry"
    ? `${what}; attempt ${r.run.attempt}/${r.run.maxAttempts} is queued`
    : `${what}; that was its last attempt: failed`;
}

/** What ending claims before their leases run out needs (the engine's parts). */
export interface ReleaseContext {
  readonly store: Store;
  /** The group committer: a completion submitted before the release lands first (and keeps its result). */
  readonly committer: { submit(command: Command): Promise<CommandResult> };
  readonly retryDelay: RetryDelay;
  readonly metrics: ReclaimMetrics | null | undefined;
  readonly events: EngineEvents;
}

/**
 * Ends `leases` now instead of at their expiry (a worker that stopped or exited and holds them
 * no longer, `why`): a heartbeat with a negative lease that marks each lease released for `why`
 * (`releaseLeaseMs`, store/run-errors.ts), fenced per lease (a claim that ended meanwhile or was
 * reclaimed is left alone), then reclaims them as an expiry would (another attempt after the
 * run's backoff, or failed on its last), the run's error saying it was released (`LEASE_RELEASED`)
 * whichever process reclaims it. Other expired leases met on the way are reclaimed too, as any
 * reclaim does. @returns the runs of `leases` reclaimed
 */
export async function releaseLeases(
  ctx: ReleaseContext,
  leases: readonly Lease[],
  why: LeaseRelease,
): Promise<ReclaimedRun[]> {
  if (leases.length === 0) return [];
  const r = await ctx.committer.submit({ verb: "heartbeat", leases: [...leases], leaseMs: releaseLeaseMs(why) });
  const lost = new Set(r.ok ? (r.lost ?? []) : leases.map((l) => l.runId));
  const mine = new Set(leases.map((l) => l.runId).filter((id) => !lost.has(id)));
  const out: ReclaimedRun[] = [];
  if (mine.size === 0) return out;
  for (;;) {
    const { ids, runs } = await reclaimExpiredLeases(ctx.store, ctx.retryDelay, ctx.metrics, ctx.events);
    out.push(...runs.filter((x) => mine.has(x.run.id)));
    if (ids.length < BATCH) break;
  }
  ctx.events.emit("work");
  return out;
}
