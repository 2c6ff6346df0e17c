/**
 * Which claims of the worker protocol each out-of-process worker holds, so that a supervisor
 * in this process that sees the worker's process die (the Python host of `sluice dev`) can
 * end them at once instead of waiting for their leases to expire.
 *
 * A claim is recorded when the server answers it (`http/worker-protocol/claims.ts`) and
 * forgotten when its park or finish is applied, or a heartbeat finds it lost. Releasing a
 * worker ({@link releaseExternalWorker}) ends the leases it still holds, each under its
 * own fencing token (a stale token changes nothing), and reclaims them as an expired lease
 * is reclaimed (`worker/reclaim.ts`): another attempt after the run's backoff, or `failed`
 * on its last one, with the reclaim span, metric and `reclaimed` event; the run's error says
 * its worker process exited (`LEASE_RELEASED`, not `LEASE_EXPIRED`). Only safe for a
 * worker known to be dead: a live one would keep writing under tokens that are now fenced.
 * A claim answered to a released worker afterwards (its long-poll raced the process's death)
 * is released as soon as it is recorded.
 *
 * Each claim also holds the server's span of that attempt (`run <workflow>`, made when the
 * claim is answered, `worker/tracing.ts`): the claim answer hands its context to the worker,
 * so the worker's own telemetry and the children of its parks hang under the attempt, as
 * they do under an in-process attempt. The span ends when the claim is forgotten (its
 * `sluice.outcome` the status written, `suspended`, or `fenced` for a lost lease), released,
 * reclaimed by this process once its lease expired, or replaced by a newer claim of the run
 * (`abandoned`). A claim reclaimed by another process (its worker died, another server's reclaim
 * found the lease expired) is found by {@link sweepQuietExternalLeases}: a claim whose worker has
 * not been heard from (claim, heartbeat) for a while is looked up in the store, and forgotten
 * (`abandoned`) when the run is no longer running under that worker.
 */
import type { Span } from "@opentelemetry/api";
import { leaseRetryDelay } from "../core/backoff.js";
import type { Lease, RunRecord } from "../store/types.js";
import { type ReclaimedRun, releaseLeases } from "../worker/reclaim.js";
import { endAttemptSpan } from "../worker/tracing.js";
import type { Engine } from "./engine.js";

/** Claims held per external worker id (see the module comment). */
export class ExternalLeases {
  /** Run id → the claim's worker, fencing token, attempt span, and when its worker was last heard from (epoch ms). */
  private readonly byRun = new Map<string, { workerId: string; token: number; span: Span | null; seenAt: number }>();
  /** Workers released so far (their processes exited; ids are not reused). */
  private readonly released = new Set<string>();

  /**
   * Records claims answered to `workerId`. Returns false when that worker was already released:
   * a claim answered in the instant its process died, which the caller releases too.
   */
  record(workerId: string, leases: readonly (Lease & { span?: Span | null })[], now = Date.now()): boolean {
    for (const l of leases) {
      const old = this.byRun.get(l.runId);
      // An older claim of the run, never forgotten (its lease expired and was reclaimed).
      if (old?.span && old.token !== l.token) endAttemptSpan(old.span, "abandoned");
      this.byRun.set(l.runId, { workerId, token: l.token, span: l.span ?? null, seenAt: now });
    }
    return !this.released.has(workerId);
  }

  /** Notes that the worker holding these claims was heard from (a heartbeat that kept them). */
  touch(leases: readonly Lease[], now = Date.now()): void {
    for (const l of leases) {
      const held = this.byRun.get(l.runId);
      if (held && held.token === l.token) held.seenAt = now;
    }
  }

  /** The claims whose worker has not been heard from for more than `quietMs` (at `now`). */
  quiet(now: number, quietMs: number): Array<Lease & { workerId: string }> {
    const out: Array<Lease & { workerId: string }> = [];
    for (const [runId, held] of this.byRun)
      if (now - held.seenAt > quietMs) out.push({ runId, token: held.token, workerId: held.workerId });
    return out;
  }

  /**
   * Forgets a claim that ended (parked, finished, lost) and ends its span with `outcome`
   * (`error`: a failed or retried run's); a newer claim of the run is kept.
   */
  forget(lease: Lease, outcome = "abandoned", error?: { message: string } | null): void {
    const held = this.byRun.get(lease.runId);
    if (!held || held.token !== lease.token) return;
    this.byRun.delete(lease.runId);
    if (held.span) endAttemptSpan(held.span, outcome, error);
  }

  /**
   * Forgets the claim of run `runId` whose lease expired and was reclaimed (the `reclaimed`
   * event of this process's engine): its span ends as `abandoned` (the run's `reclaim` span
   * records what became of the run).
   */
  expired(runId: string): void {
    const held = this.byRun.get(runId);
    if (!held) return;
    this.byRun.delete(runId);
    if (held.span) endAttemptSpan(held.span, "abandoned");
  }

  /** The attempt span of the claim `lease` names, while it is held; else null. */
  spanOf(lease: Lease): Span | null {
    const held = this.byRun.get(lease.runId);
    return held && held.token === lease.token ? held.span : null;
  }

  /** Marks `workerId` released; removes and returns the claims it still holds. */
  take(workerId: string): Lease[] {
    this.released.add(workerId);
    const out: Lease[] = [];
    for (const [runId, held] of this.byRun)
      if (held.workerId === workerId) {
        out.push({ runId, token: held.token });
        this.byRun.delete(runId);
        if (held.span) endAttemptSpan(held.span, "abandoned");
      }
    return out;
  }

  /** Claims recorded (all workers). */
  get size(): number {
    return this.byRun.size;
  }
}

/**
 * Ends the claims of a worker whose process is known to have exited: their leases end now,
 * marked released (`worker-exited`), and are reclaimed (see the module comment, and `releaseLeases`). Returns the runs reclaimed
 * that were this worker's.
 */
export async function releaseExternalWorker(engine: Engine, workerId: string): Promise<ReclaimedRun[]> {
  const leases = engine.externalLeases.take(workerId);
  return releaseLeases(
    {
      store: engine.store,
      committer: engine.committer,
      retryDelay: leaseRetryDelay(),
      metrics: engine.metrics,
      events: engine.events,
    },
    leases,
    "worker-exited",
  );
}

/**
 * Whether the store's view of a run still shows the claim `held` made: running, leased to its
 * worker. Pure; a run that is gone, finished, parked or leased to another worker is not.
 */
export function stillHeld(
  held: { workerId: string },
  run: Pick<RunRecord, "status" | "leaseOwner"> | undefined,
): boolean {
  return run !== undefined && run.status === "running" && run.leaseOwner === held.workerId;
}

/** Runs looked up per store read of {@link sweepQuietExternalLeases}. */
const SWEEP_BATCH = 500;

/**
 * Forgets the claims of workers not heard from for `quietMs` whose runs the store no longer
 * shows running under that worker (another process reclaimed them, or they ended through
 * another server): their attempt spans end as `abandoned`. A quiet claim still held is kept (its
 * lease has not expired yet, or no process has reclaimed it). Returns how many were forgotten.
 */
export async function sweepQuietExternalLeases(engine: Engine, now: number, quietMs: number): Promise<number> {
  const quiet = engine.externalLeases.quiet(now, quietMs);
  let forgotten = 0;
  for (let i = 0; i < quiet.length; i += SWEEP_BATCH) {
    const chunk = quiet.slice(i, i + SWEEP_BATCH);
    const runs = new Map((await engine.store.getRuns(chunk.map((q) => q.runId))).map((r) => [r.id, r]));
    for (const q of chunk)
      if (!stillHeld(q, runs.get(q.runId))) {
        engine.externalLeases.forget(q, "abandoned");
        forgotten++;
      }
  }
  return forgotten;
}

/**
 * One line for the log: the runs an exited worker (`whose`: "Python worker", "worker") was
 * running when its claims were released, and what happens next.
 */
export function describeRelease(runs: readonly ReclaimedRun[], whose: string): string {
  const failed = runs.filter((r) => r.outcome === "failed").length;
  const retried = runs.length - failed;
  return `the exited ${whose}'s ${runs.length} claim(s) were released: ${retried} run(s) get another attempt now${failed ? `, ${failed} failed (it was their last attempt)` : ""}`;
}
