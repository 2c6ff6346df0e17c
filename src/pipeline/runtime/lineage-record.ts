/**
 * Column lineage of materialized assets (seed 001 "Column-level lineage"), kept in Sluice's
 * store beside the schema history: one key-value record per asset (`pipeline:lineage:<uri>`)
 * holding the asset's lineage versions, each the inferred mappings merged with the script's
 * `// column` annotations per output column (the annotation wins) and recorded with the lake
 * snapshot it was computed for. A write adds a version only when its lineage differs from
 * the one in effect at its snapshot, so the lineage at any snapshot is the last version
 * recorded at or before it (time travel, like the table's rows). Updated with
 * compare-and-set so concurrent writers of one table do not lose a version.
 */
import type { Store } from "../../store/types.js";
import type { ColumnLineage } from "../annotation-types.js";
import type { InferredColumn, LineageSource } from "../column-lineage.js";

/** Key-value prefix of an asset's column lineage (`<prefix><uri>`). */
const LINEAGE_PREFIX = "pipeline:lineage:";

/** One output column of a materialized asset and where it comes from. */
export interface LineageColumn {
  readonly output: string;
  readonly sources: readonly LineageSource[];
  readonly passthrough: boolean;
  /**
   * `inferred` from the SQL, declared by a `// column` `annotation`, or `unknown`: the SQL was
   * followed but this column's sources could not be pinned down (sources empty; see
   * `column-lineage.ts`), so nothing is claimed rather than a guess.
   */
  readonly origin: "inferred" | "annotation" | "unknown";
}

/** One column lineage version of an asset: what a managed write computed, from its snapshot on. */
export interface LineageRecord {
  readonly asset: string;
  readonly script: string;
  readonly run: string;
  /** The snapshot of the write that computed it (the first of the snapshots it holds for). */
  readonly snapshot_id: number;
  readonly at: number;
  readonly columns: readonly LineageColumn[];
  /** What inference could not follow (e.g. `*` over a table function). */
  readonly warnings: readonly string[];
  /**
   * Set on a version a rollback of the table brought back (`snapshot_id` is then the rollback's
   * snapshot, `script` and `run` the original write's): the snapshot of the version it restores.
   */
  readonly restores?: number;
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
    if (!a)
      return {
        output: c.output,
        sources: c.sources,
        passthrough: c.passthrough,
        origin: c.unknown ? "unknown" : "inferred",
      };
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

const sameLineage = (a: LineageRecord, b: LineageRecord): boolean =>
  a.script === b.script &&
  JSON.stringify(a.columns) === JSON.stringify(b.columns) &&
  JSON.stringify(a.warnings) === JSON.stringify(b.warnings);

/** The version in effect at snapshot `snapshot` (the last one recorded at or before it; the latest without a snapshot). Pure. */
export function lineageAt(history: readonly LineageRecord[], snapshot?: number): LineageRecord | undefined {
  if (snapshot === undefined) return history[history.length - 1];
  let found: LineageRecord | undefined;
  for (const v of history) if (v.snapshot_id <= snapshot) found = v;
  return found;
}

/**
 * The history with `record` added (pure): kept in snapshot order; unchanged (undefined) when
 * the version in effect at its snapshot already says the same. A record for a snapshot that
 * has one replaces it.
 */
export function nextLineageHistory(
  history: readonly LineageRecord[],
  record: LineageRecord,
): LineageRecord[] | undefined {
  const before = lineageAt(
    history.filter((v) => v.snapshot_id !== record.snapshot_id),
    record.snapshot_id,
  );
  const same = history.find((v) => v.snapshot_id === record.snapshot_id);
  if (before && sameLineage(before, record) && !same) return undefined;
  const next = history.filter((v) => v.snapshot_id !== record.snapshot_id);
  if (!before || !sameLineage(before, record)) next.push(record);
  return next.sort((a, b) => a.snapshot_id - b.snapshot_id);
}

function parseHistory(raw: string | null | undefined): LineageRecord[] {
  if (!raw) return [];
  const v = JSON.parse(raw) as LineageRecord | LineageRecord[];
  // Before lineage had versions the record held only the latest write's lineage.
  return Array.isArray(v) ? v : [v];
}

/** Record the lineage a managed write computed, as a new version when it changed. @returns whether it did */
export async function recordLineage(store: Store, record: LineageRecord): Promise<boolean> {
  const key = `${LINEAGE_PREFIX}${record.asset}`;
  for (;;) {
    const raw = await store.kvGet(key);
    const next = nextLineageHistory(parseHistory(raw), record);
    if (!next) return false;
    if (await store.kvSwap(key, raw, JSON.stringify(next))) return true;
  }
}

/** Every lineage version of an asset, oldest snapshot first (empty when none was recorded). */
export async function lineageHistory(store: Store, uri: string): Promise<LineageRecord[]> {
  return parseHistory(await store.kvGet(`${LINEAGE_PREFIX}${uri}`));
}

/**
 * The lineage of an asset at lake snapshot `snapshot` (latest without one), or undefined when
 * none was recorded at or before it.
 */
export async function lineageOf(store: Store, uri: string, snapshot?: number): Promise<LineageRecord | undefined> {
  return lineageAt(await lineageHistory(store, uri), snapshot);
}

/** One line per output column, `total ← ducklake://wh/orders.amount, ducklake://wh/orders.tax` (pure). */
export function lineageLines(record: Pick<LineageRecord, "columns">): string[] {
  return record.columns.map(
    (c) =>
      `${c.output} ← ${c.origin === "unknown" ? "(unknown)" : c.sources.map((s) => `${s.table}.${s.column}`).join(", ") || "(no source column)"}`,
  );
}
