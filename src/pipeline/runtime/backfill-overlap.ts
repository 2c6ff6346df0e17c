/**
 * One backfill at a time per partition and step: a backfill started while another unfinished one
 * covers some of the same (step, partition) pairs would run those steps twice at once (the
 * "already done" check of each partition happens when its plan starts, before either finished it).
 * Starting one (`sluice pipeline backfill`, a resume) is refused, naming the other, what they share
 * and the ways out. Two starts in the same instant can still both pass: this guards the common
 * mistake (a second start of a detached backfill), not a race.
 */
import { decodeValue } from "../../core/serde.js";
import type { Store } from "../../store/types.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "./backfill-workflow.js";
import { PipelineRuntimeError } from "./errors.js";

/** The (step, partition) pairs a backfill runs, its mapped stages included, as `step\0partition`. */
function pairsOf(p: BackfillPayload): Set<string> {
  const stages = [{ steps: p.steps, partitions: p.partitions }, ...(p.mapped ?? [])];
  return new Set(stages.flatMap((s) => s.steps.flatMap((step) => s.partitions.map((part) => `${step}\0${part}`))));
}

/** What a new backfill shares with an unfinished one. */
export interface BackfillOverlap {
  /** The unfinished backfill. */
  readonly id: string;
  /** Partitions both would run some step of, in the new backfill's order. */
  readonly partitions: readonly string[];
}

/**
 * The first of `active` (unfinished backfills) that shares a (step, partition) pair of `next` in the
 * same folder, with the partitions they share; null when none does (pure).
 */
export function findBackfillOverlap(
  next: BackfillPayload,
  active: ReadonlyArray<{ readonly id: string; readonly payload: BackfillPayload }>,
): BackfillOverlap | null {
  const mine = pairsOf(next);
  for (const other of active) {
    if (other.payload.folder !== next.folder) continue;
    const shared = new Set<string>();
    for (const pair of pairsOf(other.payload)) if (mine.has(pair)) shared.add(pair.slice(pair.indexOf("\0") + 1));
    if (shared.size === 0) continue;
    const order = [...next.partitions, ...(next.mapped ?? []).flatMap((m) => m.partitions)];
    return { id: other.id, partitions: order.filter((p, i) => shared.has(p) && order.indexOf(p) === i) };
  }
  return null;
}

/** `a`, `a, b`, or `a … z (n)` for a long list. */
function listed(partitions: readonly string[]): string {
  if (partitions.length <= 3) return partitions.join(", ");
  return `${partitions[0]} … ${partitions[partitions.length - 1]} (${partitions.length})`;
}

/**
 * Refuses `next` while an unfinished backfill of the store shares steps and partitions with it.
 * @throws PipelineRuntimeError `PIPELINE_BACKFILL_ACTIVE` naming the other backfill and the ways out
 */
export async function refuseOverlappingBackfill(store: Store, next: BackfillPayload): Promise<void> {
  const runs = await store.listRuns({
    workflow: BACKFILL_WORKFLOW,
    status: ["pending", "running", "waiting"],
    limit: 1_000,
  });
  const overlap = findBackfillOverlap(
    next,
    runs.map((r) => ({ id: r.id, payload: decodeValue<BackfillPayload>(r.payload) })),
  );
  if (!overlap) return;
  throw new PipelineRuntimeError(
    "PIPELINE_BACKFILL_ACTIVE",
    `backfill ${overlap.id} of ${next.folder} is still running partitions ${listed(overlap.partitions)} with the same steps: another backfill now would run them twice; follow it (sluice pipeline backfill status ${overlap.id} --follow) or cancel it (sluice pipeline backfill cancel ${overlap.id}) first`,
  );
}
