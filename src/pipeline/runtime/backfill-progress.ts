/**
 * The progress of a backfill, read from the store: its run, the partitions it covers,
 * and per partition the state of its plan run (or `skipped`, already done; or `queued`,
 * not started yet). `sluice pipeline backfill status`, the follower of
 * `sluice pipeline backfill` and the API read it.
 */
import { decodeValue } from "../../core/serde.js";
import type { RunRecord, RunStatus, Store } from "../../store/types.js";
import { BACKFILL_WORKFLOW, type BackfillPayload, type BackfillTodo } from "./backfill-workflow.js";
import { PipelineRuntimeError } from "./errors.js";

/** The state of one partition of a backfill. */
export type PartitionState = RunStatus | "queued" | "skipped";

/** One partition of a backfill. */
export interface PartitionProgress {
  readonly partition: string;
  readonly state: PartitionState;
  /** Its plan run, once started. */
  readonly run: string | null;
  readonly error: string | null;
}

/** A backfill and its partitions. */
export interface BackfillProgress {
  readonly id: string;
  readonly status: RunStatus;
  readonly folder: string;
  readonly scheme: string | null;
  readonly steps: readonly string[];
  readonly concurrency: number;
  readonly force: boolean;
  readonly resumeOf: string | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
  readonly error: string | null;
  readonly partitions: readonly PartitionProgress[];
  /** Count per state. */
  readonly counts: Readonly<Record<PartitionState, number>>;
  /** Partitions that are finished (succeeded, skipped, failed or cancelled). */
  readonly finished: number;
}

const FINISHED: ReadonlySet<PartitionState> = new Set(["succeeded", "skipped", "failed", "cancelled"]);

/** Whether a run status is final. */
export function isFinal(status: RunStatus): boolean {
  return status === "succeeded" || status === "failed" || status === "cancelled";
}

function partitionOf(run: RunRecord): string | null {
  const p = decodeValue<{ partition?: unknown } | null>(run.payload);
  return p && typeof p.partition === "string" ? p.partition : null;
}

/**
 * Reads a backfill's progress.
 * @throws PipelineRuntimeError `PIPELINE_BACKFILL_UNKNOWN` when `id` is not a backfill run
 */
export async function backfillProgress(store: Store, id: string): Promise<BackfillProgress> {
  const run = await store.getRun(id);
  if (!run || run.workflow !== BACKFILL_WORKFLOW)
    throw new PipelineRuntimeError(
      "PIPELINE_BACKFILL_UNKNOWN",
      `${id} is not a backfill${run ? ` (it is a run of ${run.workflow})` : ""}; list backfills with: sluice runs --workflow ${BACKFILL_WORKFLOW}`,
    );
  const payload = decodeValue<BackfillPayload>(run.payload);
  const steps = await store.getSteps(id);
  const skipped = new Set(
    steps
      .filter((s) => s.key.startsWith("backfill:todo") && s.status === "done")
      .flatMap((s) => decodeValue<BackfillTodo>(s.value).skipped),
  );
  const children = await store.listRuns({ parentId: id, limit: 100_000 });
  const byPartition = new Map<string, RunRecord>();
  for (const c of children) {
    const p = partitionOf(c);
    const seen = p === null ? undefined : byPartition.get(p);
    if (p !== null && (!seen || seen.seq < c.seq)) byPartition.set(p, c);
  }
  const counts: Record<PartitionState, number> = {
    queued: 0,
    skipped: 0,
    pending: 0,
    running: 0,
    waiting: 0,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
  };
  // The range's partitions, then those of its mapped (coarser) stages.
  const all = [...payload.partitions, ...(payload.mapped ?? []).flatMap((m) => m.partitions)];
  const partitions = all.map((partition): PartitionProgress => {
    const child = byPartition.get(partition);
    const state: PartitionState = child
      ? child.status
      : skipped.has(partition)
        ? "skipped"
        : run.status === "cancelled"
          ? "cancelled"
          : "queued";
    counts[state]++;
    return { partition, state, run: child?.id ?? null, error: child?.error?.message ?? null };
  });
  return {
    id,
    status: run.status,
    folder: payload.folder,
    scheme: payload.scheme ?? null,
    steps: [...payload.steps, ...(payload.mapped ?? []).flatMap((m) => m.steps)],
    concurrency: payload.concurrency ?? 1,
    force: payload.force ?? false,
    resumeOf: payload.resumeOf ?? null,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    error: run.error?.message ?? null,
    partitions,
    counts,
    finished: partitions.filter((p) => FINISHED.has(p.state)).length,
  };
}
