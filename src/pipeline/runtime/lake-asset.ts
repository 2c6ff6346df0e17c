/**
 * What Sluice knows of a materialized `ducklake://<lake>/<table>` asset, for the API, the CLI
 * and the UI: its materialization state per partition, captured schema versions and column
 * lineage (Sluice's store), the lake snapshots that touched the table and a read-only preview
 * of its rows at any snapshot (the lake itself). Reading never creates a lake.
 */
import type { AssetHost } from "../../assets/host.js";
import { sqlString } from "../../assets/duckdb.js";
import type { TestOutcome } from "../../lake/data-tests.js";
import { reportChanges } from "../../lake/changes.js";
import { duckdbTypeOf } from "../../lake/column-types.js";
import { LakeError } from "../../lake/errors.js";
import { openExistingProjectLake } from "../../lake/project-lake.js";
import type { LakeReader } from "../../lake/reader.js";
import type { SnapshotRef } from "../../lake/types.js";
import type { Store } from "../../store/types.js";
import { PipelineRuntimeError } from "./errors.js";
import type { PipelineFolder } from "./catalog.js";
import { type EdgeLineage, writerLineage } from "./graph-lineage.js";
import { lineageAt, lineageHistory, type LineageRecord } from "./lineage-record.js";
import { MATERIALIZED_PREFIX } from "./materialized-record.js";
import { PARTITION_COLUMN } from "../partition-column.js";
import { schemaHistory, type SchemaVersion } from "./schema-history.js";

/** The most rows a preview returns. */
export const MAX_PREVIEW_ROWS = 500;

/** The state a managed write recorded for one slice (`partition` null for a whole table). */
interface MaterializedSlice {
  readonly partition: string | null;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly run: string;
  readonly at: number;
  readonly tests?: readonly TestOutcome[];
}

/** One lake snapshot that changed the table. */
interface TableSnapshot {
  readonly snapshot_id: number;
  readonly time: string;
  readonly changes: Record<string, string[]>;
  readonly author: string | null;
  readonly message: string | null;
}

/** Everything known of a materialized lake table. */
export interface LakeAssetDetail {
  readonly uri: string;
  readonly lake: string;
  readonly table: string;
  /** Written slices, newest partition first. */
  readonly partitions: readonly MaterializedSlice[];
  readonly schema: readonly SchemaVersion[];
  /** The column lineage at the snapshot asked for (the latest without one). */
  readonly lineage: LineageRecord | null;
  /** Every lineage version, oldest snapshot first (each holds from its snapshot on). */
  readonly lineage_history: readonly LineageRecord[];
  /**
   * Before any write recorded lineage: what the pipeline graph shows on the write edge into the
   * table (inferred from the loaded script's SQL without running it, `source: "static"`, or its
   * `// column` lines); null once lineage is recorded, or when no loaded script writes the table.
   */
  readonly static_lineage: (EdgeLineage & { readonly script: string }) | null;
  /** Snapshots of the lake that touched the table, oldest first (empty when the lake does not exist). */
  readonly snapshots: readonly TableSnapshot[];
}

/** `ducklake://<lake>/<table>` split. @throws PipelineRuntimeError for any other URI */
function parseLakeTableUri(uri: string): { lake: string; table: string } {
  const m = /^ducklake:\/\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_.]+)$/.exec(uri);
  if (!m)
    throw new PipelineRuntimeError(
      "LAKE_ASSET_INVALID",
      `${JSON.stringify(uri)} is not a lake table; write ducklake://<lake>/<table>, e.g. ducklake://main/orders`,
    );
  return { lake: m[1]!, table: m[2]! };
}

async function withReader<T>(host: AssetHost, lake: string, fn: (r: LakeReader) => Promise<T>): Promise<T | undefined> {
  const opened = await openExistingProjectLake(host, lake);
  if (!opened) return undefined;
  try {
    return await fn(opened.reader);
  } finally {
    await opened.close();
  }
}

/** The snapshots that created, wrote, altered or dropped `table` (pure). */
function snapshotsOfTable(
  snapshots: ReadonlyArray<{
    snapshotId: number;
    time: string;
    changes: string | null;
    author: string | null;
    commitMessage: string | null;
  }>,
  table: string,
  tableId: number | undefined,
): TableSnapshot[] {
  const qualified = table.includes(".") ? table : `main.${table}`;
  return snapshots
    .map((s) => ({ s, changes: reportChanges(s.changes) }))
    .filter(({ changes }) =>
      Object.entries(changes).some(([kind, values]) =>
        kind === "tables_created"
          ? values.includes(qualified)
          : tableId !== undefined && values.includes(String(tableId)),
      ),
    )
    .map(({ s, changes }) => ({
      snapshot_id: s.snapshotId,
      time: s.time,
      changes,
      author: s.author,
      message: s.commitMessage,
    }));
}

/** The detail of a lake table asset; its column lineage as of lake snapshot `options.snapshot` when given. */
export async function lakeAssetDetail(
  store: Store,
  host: AssetHost,
  uri: string,
  options: { snapshot?: number; folders?: readonly PipelineFolder[] } = {},
): Promise<LakeAssetDetail> {
  const { lake, table } = parseLakeTableUri(uri);
  const slices = (await store.kvList(`${MATERIALIZED_PREFIX}${uri} `)).map((r) => {
    const v = JSON.parse(r.value) as MaterializedSlice & { partition?: string };
    return { ...v, partition: v.partition ?? null };
  });
  slices.sort((a, b) => (b.partition ?? "").localeCompare(a.partition ?? ""));
  const lineage = await lineageHistory(store, uri);
  const snapshots =
    (await withReader(host, lake, async (r) => {
      const all = await r.snapshots();
      const latest = all[all.length - 1]?.snapshotId ?? 0;
      const found = await r.findTable(table, latest);
      return snapshotsOfTable(all, table, found?.table.tableId ?? undefined);
    })) ?? [];
  return {
    uri,
    lake,
    table,
    partitions: slices,
    schema: await schemaHistory(store, uri),
    lineage: lineageAt(lineage, options.snapshot) ?? null,
    lineage_history: lineage,
    static_lineage: lineage.length || !options.folders ? null : await writerLineage(store, options.folders, uri),
    snapshots,
  };
}

/** A read-only preview of a lake table. */
export interface LakePreview {
  readonly uri: string;
  readonly snapshot_id: number;
  readonly partition: string | null;
  readonly columns: ReadonlyArray<{ name: string; type: string }>;
  readonly rows: readonly Record<string, unknown>[];
  /** Rows of the slice previewed (the whole table, or the partition). */
  readonly total: number;
}

/**
 * The first `limit` rows of a lake table at a snapshot (latest by default), of one Sluice
 * partition when `partition` is given. @throws LakeError when the lake, table or snapshot does not exist
 */
export async function lakePreview(
  host: AssetHost,
  uri: string,
  options: { partition?: string; snapshot?: number; limit?: number } = {},
): Promise<LakePreview> {
  const { lake, table } = parseLakeTableUri(uri);
  const limit = Math.min(Math.max(1, options.limit ?? 50), MAX_PREVIEW_ROWS);
  const ref: SnapshotRef =
    options.snapshot === undefined ? { kind: "latest" } : { kind: "version", snapshotId: options.snapshot };
  const out = await withReader(host, lake, async (r) => {
    const snapshot = await r.snapshot(ref);
    const columns = await r.columns(table, ref);
    if (options.partition !== undefined && !columns.some((c) => c.name === PARTITION_COLUMN))
      throw new PipelineRuntimeError(
        "LAKE_ASSET_INVALID",
        `${uri} is not partitioned by Sluice (no ${PARTITION_COLUMN} column); preview it without a partition`,
      );
    const where = options.partition === undefined ? "" : ` WHERE ${PARTITION_COLUMN} = ${sqlString(options.partition)}`;
    const [count] = await r.query(table, ref, `SELECT count(*) AS n FROM {table}${where}`);
    const rows = await r.query(table, ref, `SELECT * FROM {table}${where} LIMIT ${limit}`);
    return {
      uri,
      snapshot_id: snapshot.snapshotId,
      partition: options.partition ?? null,
      columns: columns.map((c) => ({ name: c.name, type: duckdbTypeOf(c.type) })),
      rows,
      total: Number(count?.n ?? 0),
    };
  });
  if (!out)
    throw new LakeError("LAKE_NOT_FOUND", `lake ${lake} does not exist yet; materialize a table into ${uri} first`);
  return out;
}
