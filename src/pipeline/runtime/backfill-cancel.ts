/**
 * Cancelling a backfill the way Dagster does: no new step starts, the steps already
 * running finish (their side effects are not cut in half, and what they finish is
 * recorded as done, so a resume does not redo it), then the backfill and its unfinished
 * partitions are cancelled. A key-value flag tells the plans to start no further step;
 * steps still waiting for a concurrency slot are cancelled at once.
 */
import { isActive } from "../../core/run-status.js";
import type { RunRecord, Store } from "../../store/types.js";

/** Key prefix of the cancel requests. */
const CANCEL_PREFIX = "pipeline:backfill-cancel:";

/** Whether the backfill was asked to cancel. */
export async function cancelRequested(store: Store, backfill: string): Promise<boolean> {
  return (await store.kvGet(`${CANCEL_PREFIX}${backfill}`)) !== null;
}

/** What {@link cancelBackfill} needs. */
export interface CancelDeps {
  readonly store: Store;
  /** Cancels one run (and its unfinished descendants). */
  cancel(run: string, reason: string): Promise<unknown>;
}

/** Options of {@link cancelBackfill}. */
export interface CancelOptions {
  /** How long running steps may take to finish before they are cancelled too (default 60 s). */
  readonly graceMs?: number;
  readonly pollMs?: number;
  /** Called while waiting, with the steps still running. */
  readonly onWait?: (running: readonly RunRecord[]) => void;
}

async function descendants(store: Store, id: string): Promise<{ plans: RunRecord[]; steps: RunRecord[] }> {
  const plans = await store.listRuns({ parentId: id, limit: 100_000 });
  const steps: RunRecord[] = [];
  for (const p of plans)
    if (isActive(p.status)) steps.push(...(await store.listRuns({ parentId: p.id, limit: 1_000 })));
  return { plans, steps };
}

/** What one look at a cancelling run finds: whether it already finished, and its steps. */
interface CancelLook {
  readonly finished: boolean;
  readonly steps: readonly RunRecord[];
}

/**
 * The graceful cancel both backfills and plans use: raise the flag (no new step starts),
 * cancel pending steps at once, let running ones finish up to the grace period, then
 * `finish` (cancel the parent). A parent found finished ends the wait without `finish`.
 */
export async function cancelGracefully(
  deps: CancelDeps,
  id: string,
  reason: string,
  options: CancelOptions,
  look: () => Promise<CancelLook>,
  isRunning: (step: RunRecord) => boolean,
  finish: () => Promise<unknown>,
): Promise<{ finishedSteps: number; graceExpired: boolean }> {
  await deps.store.kvPut(`${CANCEL_PREFIX}${id}`, JSON.stringify({ reason, at: Date.now() }));
  const deadline = Date.now() + (options.graceMs ?? 60_000);
  const waitedFor = new Set<string>();
  let graceExpired = false;
  for (;;) {
    const { finished, steps } = await look();
    if (finished) return { finishedSteps: waitedFor.size, graceExpired };
    for (const s of steps) if (s.status === "pending") await deps.cancel(s.id, reason);
    const running = steps.filter(isRunning);
    for (const r of running) waitedFor.add(r.id);
    if (running.length === 0) break;
    if (Date.now() > deadline) {
      graceExpired = true;
      break;
    }
    options.onWait?.(running);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
  await finish();
  return { finishedSteps: waitedFor.size, graceExpired };
}

/**
 * Cancels a backfill gracefully; resolves once it is cancelled. Returns how many steps
 * were let finish and whether the grace period ran out.
 */
export function cancelBackfill(
  deps: CancelDeps,
  id: string,
  reason: string,
  options: CancelOptions = {},
): Promise<{ finishedSteps: number; graceExpired: boolean }> {
  return cancelGracefully(
    deps,
    id,
    reason,
    options,
    async () => ({ finished: false, steps: (await descendants(deps.store, id)).steps }),
    (s) => s.status === "running",
    () => deps.cancel(id, reason),
  );
}
