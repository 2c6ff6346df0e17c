/**
 * Column lineage for the pipeline graph (`sluice pipeline graph --json`, `GET /api/pipelines`),
 * attached to the write edge of a script into a `ducklake://<lake>/<table>` asset:
 *
 * 1. `recorded`: the latest lineage version the script's last managed write recorded in the
 *    store (`lineage-record.ts`), inferred on that write's own session;
 * 2. else, for a managed SQL materialization, `static`: the same inference from the loaded
 *    script's SQL without running it (`static-lineage.ts`; seed 001: "SQL-AST inference runs
 *    when a pipeline is deployed"), what cannot be followed before a write marked `unknown`;
 * 3. else the script's `// column` lines alone (`annotations`; code writes, whose lineage is
 *    their annotations).
 *
 * Every form is merged with the script's `// column` lines, the annotation winning.
 */
import type { Store } from "../../store/types.js";
import type { PipelineFolder } from "./catalog.js";
import type { ColumnLineage } from "../annotation-types.js";
import { lineageOf, mergeColumnLineage, type LineageColumn, type LineageRecord } from "./lineage-record.js";
import { storedColumns } from "./reserved-column.js";
import type { StaticLineage } from "./static-lineage.js";

/** A lake table URI (`ducklake://<lake>/<table>`), the assets lineage is recorded for. */
export const isLakeTableUri = (uri: string): boolean => /^ducklake:\/\/[^/]+\/[^/]+$/.test(uri);

/** The lineage of a write edge as the graph shows it. */
export interface EdgeLineage {
  /**
   * `recorded`: what the script's last managed write computed (inferred from its SQL, merged
   * with its `// column` lines); `static`: no write recorded yet, inferred from the loaded
   * script's SQL without running it (merged the same way); `annotations`: no write recorded
   * and no SQL to infer from, its `// column` lines only.
   */
  readonly source: "recorded" | "static" | "annotations";
  /** The lake snapshot of the write that computed it (it holds from there on); null unless `recorded`. */
  readonly snapshot_id: number | null;
  readonly run: string | null;
  readonly at: number | null;
  readonly columns: readonly LineageColumn[];
  readonly warnings: readonly string[];
}

/** What {@link graphLineage} gathers for the graph's write edges. */
export interface GraphLineage {
  /** The latest recorded lineage by asset URI. */
  readonly recorded: ReadonlyMap<string, LineageRecord>;
  /** The pre-write lineage of each managed SQL materialization, by script path. */
  readonly inferred: ReadonlyMap<string, StaticLineage>;
}

/** True when some folder writes a lake table (so the graph has lineage to show). */
export function writesLakeTables(folders: readonly PipelineFolder[]): boolean {
  return folders.some((f) => f.analysis.graph.assets.some((a) => isLakeTableUri(a.asset.uri)));
}

/**
 * The latest recorded lineage of every lake table asset of `folders` (none without a store),
 * and the pre-write lineage of their managed SQL materializations, whose lake tables have the
 * columns of their latest schema version in the store when there is one.
 */
export async function graphLineage(
  store: Store | undefined,
  folders: readonly PipelineFolder[],
): Promise<GraphLineage> {
  const recorded = new Map<string, LineageRecord>();
  if (store)
    for (const f of folders)
      for (const a of f.analysis.graph.assets) {
        if (!isLakeTableUri(a.asset.uri) || recorded.has(a.asset.uri)) continue;
        const record = await lineageOf(store, a.asset.uri);
        if (record) recorded.set(a.asset.uri, record);
      }
  if (!writesLakeTables(folders)) return { recorded, inferred: new Map() };
  // loaded on first use: DuckDB's bindings are heavy, and only a graph with lake tables needs them
  const { inferLoadedLineage } = await import("./static-lineage.js");
  const inferred = await inferLoadedLineage(folders, store ? storedColumns(store) : async () => undefined);
  return { recorded, inferred };
}

/**
 * What the graph shows on the write edge into lake table `uri` (see {@link edgeLineage}), for
 * the first script of `folders` that writes it, with that script's path; null when no script
 * writes it or the edge has no lineage. A lake table's page shows it before any write recorded
 * one (`source` then `static` or `annotations`).
 */
export async function writerLineage(
  store: Store | undefined,
  folders: readonly PipelineFolder[],
  uri: string,
): Promise<(EdgeLineage & { readonly script: string }) | null> {
  for (const folder of folders) {
    const edge = folder.analysis.graph.edges.find(
      (e) => e.kind === "writes" && e.to === `asset:${uri}` && e.from.startsWith("script:"),
    );
    if (!edge) continue;
    const script = edge.from.slice("script:".length);
    const annotated = folder.members.find((m) => m.path === script)?.analyzed.annotations.columns ?? [];
    const l = edgeLineage(await graphLineage(store, [folder]), script, uri, annotated);
    return l ? { ...l, script } : null;
  }
  return null;
}

/**
 * The lineage of the write edge `script → uri` (pure): the asset's record when `script` wrote
 * it; else the script's pre-write inference when it materializes `uri` from SQL; else the
 * script's `// column` lines (`annotated`) when it has any; null for a lake table with none of
 * these; undefined for other assets (the edge carries no `lineage` field).
 */
export function edgeLineage(
  lineage: GraphLineage | undefined,
  script: string,
  uri: string,
  annotated: readonly ColumnLineage[],
): EdgeLineage | null | undefined {
  if (!isLakeTableUri(uri)) return undefined;
  const r = lineage?.recorded.get(uri);
  if (r && r.script === script)
    return {
      source: "recorded",
      snapshot_id: r.snapshot_id,
      run: r.run,
      at: r.at,
      columns: r.columns,
      warnings: r.warnings,
    };
  const inferred = lineage?.inferred.get(script);
  if (inferred && inferred.asset === uri && inferred.result)
    return {
      source: "static",
      snapshot_id: null,
      run: null,
      at: null,
      columns: mergeColumnLineage(inferred.result.columns, annotated),
      warnings: inferred.warnings,
    };
  const failed = inferred !== undefined && inferred.asset === uri; // its SELECT could not be parsed
  if (!annotated.length && !failed) return null;
  return {
    source: "annotations",
    snapshot_id: null,
    run: null,
    at: null,
    columns: mergeColumnLineage([], annotated),
    // a managed SQL script whose SELECT DuckDB could not parse says so
    warnings: failed ? inferred.warnings : [],
  };
}
