/**
 * Column lineage of materialized assets (seed 001 "Column-level lineage"), kept in Sluice's
 * store beside the schema history: one key-value record per asset (`pipeline:lineage:<uri>`)
 * holding the lineage of its latest managed write, the inferred mappings merged with the
 * script's `// column` annotations per output column (the annotation wins).
 */
import type { Store } from "../../store/types.js";
import type { ColumnLineage } from "../annotation-types.js";
import type { InferredColumn, LineageSource } from "../column-lineage.js";

/** Key-value prefix of an asset's column lineage (`<prefix><uri>`). */
export const LINEAGE_PREFIX = "pipeline:lineage:";

/** One output column of a materialized asset and where it comes from. */
export interface LineageColumn {
  readonly output: string;
  readonly sources: readonly LineageSource[];
  readonly passthrough: boolean;
  /** `inferred` from the SQL, or declared by a `// column` `annotation`. */
  readonly origin: "inferred" | "annotation";
}

/** The column lineage recorded for an asset by its latest managed write. */
export interface LineageRecord {
  readonly asset: string;
  readonly script: string;
  readonly run: string;
  readonly snapshot_id: number;
  readonly at: number;
  readonly columns: readonly LineageColumn[];
  /** What inference could not follow (e.g. `*` over a table function). */
  readonly warnings: readonly string[];
}

/**
 * Inferred columns merged with `// column` annotations (pure): an annotated output replaces
 * the inferred one; an annotated output the query does not return is added at the end.
 */
export function mergeColumnLineage(
  inferred: readonly InferredColumn[],
  annotated: readonly ColumnLineage[],
): LineageColumn[] {
  const declared = new Map(annotated.map((a) => [a.output.toLowerCase(), a]));
  const out: LineageColumn[] = inferred.map((c) => {
    const a = declared.get(c.output.toLowerCase());
    if (!a) return { ...c, origin: "inferred" };
    declared.delete(c.output.toLowerCase());
    return {
      output: c.output,
      sources: a.sources.map((s) => ({ table: s.asset, column: s.column })),
      passthrough: false,
      origin: "annotation",
    };
  });
  for (const a of declared.values())
    out.push({
      output: a.output,
      sources: a.sources.map((s) => ({ table: s.asset, column: s.column })),
      passthrough: false,
      origin: "annotation",
    });
  return out;
}

/** Record the lineage of an asset's latest write (replaces the previous record). */
export async function recordLineage(store: Store, record: LineageRecord): Promise<void> {
  await store.kvPut(`${LINEAGE_PREFIX}${record.asset}`, JSON.stringify(record));
}

/** The recorded lineage of an asset, or undefined when it was never materialized by a managed SQL write. */
export async function lineageOf(store: Store, uri: string): Promise<LineageRecord | undefined> {
  const raw = await store.kvGet(`${LINEAGE_PREFIX}${uri}`);
  return raw ? (JSON.parse(raw) as LineageRecord) : undefined;
}

/** One line per output column, `total ← ducklake://wh/orders.amount, ducklake://wh/orders.tax` (pure). */
export function lineageLines(record: LineageRecord): string[] {
  return record.columns.map(
    (c) => `${c.output} ← ${c.sources.map((s) => `${s.table}.${s.column}`).join(", ") || "(no source column)"}`,
  );
}
