/**
 * Which slice records of a lake table are in effect at a snapshot (pure). A table's records
 * change by two kinds of event: a managed write of a slice (its record, at the write's
 * snapshot; the latest one per partition wins) and a rollback made as snapshot R that makes
 * the table from R on what it was at an older snapshot S. So the records in effect at X are
 * those in effect at S of the last rollback R ≤ X (none before any rollback), with the writes
 * after R up to X applied. A rollback to a snapshot before or after an earlier rollback
 * therefore brings back exactly the records the table had there, including ones an earlier
 * rollback removed.
 */

/** A managed write of a slice, as recorded (`pipeline:materialized:` value). */
export interface SliceWrite {
  readonly kind: "write";
  readonly snapshot: number;
  /** The slice's partition ("" for a whole-table write). */
  readonly partition: string;
  /** When it was recorded (epoch ms): orders writes recorded at one snapshot. */
  readonly at: number;
  /** The record, as stored (JSON text). */
  readonly record: string;
}

/** A rollback of the table made as snapshot `snapshot`, restoring snapshot `to`. */
export interface SliceRollback {
  readonly kind: "rollback";
  readonly snapshot: number;
  readonly to: number;
}

/** One event of a table's slice records. */
export type SliceEvent = SliceWrite | SliceRollback;

/**
 * By snapshot; at one snapshot the rollback that made it first (a write recorded at a
 * rollback's snapshot changed nothing after it), then writes by recording time.
 */
function order(a: SliceEvent, b: SliceEvent): number {
  if (a.snapshot !== b.snapshot) return a.snapshot - b.snapshot;
  if (a.kind !== b.kind) return a.kind === "rollback" ? -1 : 1;
  return a.kind === "write" && b.kind === "write" ? a.at - b.at : 0;
}

/** The record of each partition in effect at snapshot `at` (partition → write). */
export function slicesAt(events: readonly SliceEvent[], at: number): Map<string, SliceWrite> {
  const sorted = events.filter((e) => e.snapshot <= at).sort(order);
  let from = 0;
  let slices = new Map<string, SliceWrite>();
  for (let i = sorted.length - 1; i >= 0; i--) {
    const e = sorted[i]!;
    if (e.kind === "rollback" && e.to < e.snapshot) {
      slices = slicesAt(events, e.to);
      from = i + 1;
      break;
    }
  }
  for (const e of sorted.slice(from)) if (e.kind === "write") slices.set(e.partition, e);
  return slices;
}
