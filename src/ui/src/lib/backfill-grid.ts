/**
 * The per-partition progress grid of a backfill (pure): one cell per partition, coloured
 * by its state, with a tooltip, plus the one-line summary shown above it.
 */
import type { BackfillProgress, PartitionState } from "../../../pipeline/runtime/backfill-progress";

/** One cell of the grid. */
export interface GridCell {
  readonly partition: string;
  readonly state: PartitionState;
  /** CSS status class (`st-…`): queued partitions look pending, skipped ones idle. */
  readonly className: string;
  readonly title: string;
  /** The partition's plan run, to link to. */
  readonly run: string | null;
}

const CLASS: Record<PartitionState, string> = {
  queued: "st-pending",
  pending: "st-pending",
  running: "st-running",
  waiting: "st-running",
  succeeded: "st-succeeded",
  failed: "st-failed",
  cancelled: "st-cancelled",
  skipped: "st-skipped",
};

const LABEL: Record<PartitionState, string> = {
  queued: "queued",
  pending: "starting",
  running: "running",
  waiting: "running",
  succeeded: "succeeded",
  failed: "failed",
  cancelled: "cancelled",
  skipped: "skipped (already done)",
};

/** The grid's cells, in partition order. */
export function gridCells(b: BackfillProgress): GridCell[] {
  return b.partitions.map((p) => ({
    partition: p.partition,
    state: p.state,
    className: CLASS[p.state],
    title: `${p.partition}: ${LABEL[p.state]}${p.error ? ` — ${p.error}` : ""}`,
    run: p.run,
  }));
}

/** `12/30 finished · 10 succeeded, 2 skipped, 1 failed`. */
export function gridSummary(b: BackfillProgress): string {
  const parts = (["succeeded", "skipped", "failed", "cancelled", "running", "waiting", "pending", "queued"] as const)
    .filter((s) => b.counts[s] > 0)
    .map((s) => `${b.counts[s]} ${s === "waiting" ? "running" : s}`);
  return `${b.finished}/${b.partitions.length} finished${parts.length ? ` · ${parts.join(", ")}` : ""}`;
}
