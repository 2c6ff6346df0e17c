/**
 * Column lineage for the pipeline graph (`sluice pipeline graph --json`, `GET /api/pipelines`):
 * the latest lineage version each managed `ducklake://<lake>/<table>` asset of the folders
 * recorded in the store (`lineage-record.ts`), attached to the write edge of the script that
 * recorded it. The graph itself is computed from the files; lineage is what the last managed
 * write inferred on its own session (so `SELECT *` over a lake table is expanded) merged with
 * its `// column` lines, hence it needs the store; before a first write the edge shows the
 * script's `// column` lines alone (seed 001: "an unsaved draft shows // column annotations only").
 */
import type { Store } from "../../store/types.js";
import type { PipelineFolder } from "./catalog.js";
import type { ColumnLineage } from "../annotation-types.js";
import { lineageOf, mergeColumnLineage, type LineageColumn, type LineageRecord } from "./lineage-record.js";

/** A lake table URI (`ducklake://<lake>/<table>`), the assets lineage is recorded for. */
export const isLakeTableUri = (uri: string): boolean => /^ducklake:\/\/[^/]+\/[^/]+$/.test(uri);

/** The lineage of a write edge as the graph shows it. */
export interface EdgeLineage {
  /**
   * `recorded`: what the script's last managed write computed (inferred from its SQL, merged
   * with its `// column` lines); `annotations`: no write recorded yet, its `// column` lines only.
   */
  readonly source: "recorded" | "annotations";
  /** The lake snapshot of the write that computed it (it holds from there on); null for `annotations`. */
  readonly snapshot_id: number | null;
  readonly run: string | null;
  readonly at: number | null;
  readonly columns: readonly LineageColumn[];
  readonly warnings: readonly string[];
}

/** Lineage records by asset URI, as {@link graphLineage} reads them. */
export type GraphLineage = ReadonlyMap<string, LineageRecord>;

/** True when some folder writes a lake table (so the graph has lineage to show). */
export function writesLakeTables(folders: readonly PipelineFolder[]): boolean {
  return folders.some((f) => f.analysis.graph.assets.some((a) => isLakeTableUri(a.asset.uri)));
}

/** The latest recorded lineage of every lake table asset of `folders`. */
export async function graphLineage(store: Store, folders: readonly PipelineFolder[]): Promise<GraphLineage> {
  const out = new Map<string, LineageRecord>();
  for (const f of folders)
    for (const a of f.analysis.graph.assets) {
      if (!isLakeTableUri(a.asset.uri) || out.has(a.asset.uri)) continue;
      const record = await lineageOf(store, a.asset.uri);
      if (record) out.set(a.asset.uri, record);
    }
  return out;
}

/**
 * The lineage of the write edge `script → uri` (pure): the asset's record when `script` wrote
 * it; else the script's `// column` lines (`annotated`) when it has any; null for a lake table
 * with neither; undefined for other assets (the edge carries no `lineage` field).
 */
export function edgeLineage(
  lineage: GraphLineage | undefined,
  script: string,
  uri: string,
  annotated: readonly ColumnLineage[],
): EdgeLineage | null | undefined {
  if (!isLakeTableUri(uri)) return undefined;
  const r = lineage?.get(uri);
  if (r && r.script === script)
    return {
      source: "recorded",
      snapshot_id: r.snapshot_id,
      run: r.run,
      at: r.at,
      columns: r.columns,
      warnings: r.warnings,
    };
  if (!annotated.length) return null;
  return {
    source: "annotations",
    snapshot_id: null,
    run: null,
    at: null,
    columns: mergeColumnLineage([], annotated),
    warnings: [],
  };
}
