/**
 * Reading DuckLake catalog rows into domain values (only reads; visibility is decided by
 * `visibility.ts`).
 */
import { bool, type CatalogDb, type CatalogRow, num, numOrNull, strOrNull } from "./catalog-db.js";
import { LakeError } from "./errors.js";
import { isoMicros, timestampMicros } from "./visibility.js";
import type { LakeColumn, LakeDataFile, LakeDeleteFile, LakeSchema, LakeSnapshot, LakeTable } from "./types.js";

/** The DuckLake format versions this code reads and writes. */
const SUPPORTED_VERSIONS = ["1.0"] as const;

const range = (r: CatalogRow) => ({ beginSnapshot: num(r.begin_snapshot), endSnapshot: numOrNull(r.end_snapshot) });

/** Global `ducklake_metadata` keys. @throws LakeError when the catalog has none or another version */
export async function readMetadata(db: CatalogDb): Promise<Record<string, string>> {
  let rows: CatalogRow[];
  try {
    rows = await db.all("SELECT key, value FROM ducklake_metadata WHERE scope IS NULL");
  } catch (err) {
    throw new LakeError(
      "LAKE_CATALOG_INVALID",
      `this database is not a DuckLake catalog (no ducklake_metadata table): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const meta = Object.fromEntries(rows.map((r) => [String(r.key), String(r.value)]));
  if (!meta.version)
    throw new LakeError(
      "LAKE_CATALOG_INVALID",
      "the catalog's ducklake_metadata has no version key; it was not written by a DuckLake 1.0 writer",
    );
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(meta.version)) {
    throw new LakeError(
      "LAKE_VERSION_UNSUPPORTED",
      `DuckLake catalog version ${meta.version} is not supported (Sluice reads ${SUPPORTED_VERSIONS.join(", ")}); migrate it with the DuckDB ducklake extension`,
    );
  }
  return meta;
}

const SNAPSHOT_ROWS =
  "SELECT s.snapshot_id, CAST(s.snapshot_time AS VARCHAR) AS snapshot_time, s.schema_version, s.next_catalog_id, s.next_file_id, c.changes_made, c.author, c.commit_message " +
  "FROM ducklake_snapshot s LEFT JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id";

/** Every snapshot with its changes, oldest first. */
export async function readSnapshots(db: CatalogDb): Promise<LakeSnapshot[]> {
  return snapshotsOf(await db.all(`${SNAPSHOT_ROWS} ORDER BY s.snapshot_id`));
}

/** The latest snapshot with its changes (one row, however long the history), or undefined in an empty catalog. */
export async function readLatestSnapshot(db: CatalogDb): Promise<LakeSnapshot | undefined> {
  return snapshotsOf(await db.all(`${SNAPSHOT_ROWS} ORDER BY s.snapshot_id DESC LIMIT 1`))[0];
}

function snapshotsOf(rows: readonly CatalogRow[]): LakeSnapshot[] {
  return rows.map((r) => {
    const micros = timestampMicros(String(r.snapshot_time));
    return {
      snapshotId: num(r.snapshot_id),
      time: isoMicros(micros),
      micros,
      schemaVersion: num(r.schema_version),
      nextCatalogId: num(r.next_catalog_id),
      nextFileId: num(r.next_file_id),
      changes: strOrNull(r.changes_made),
      author: strOrNull(r.author),
      commitMessage: strOrNull(r.commit_message),
    };
  });
}

/** Every schema version row. */
export async function readSchemas(db: CatalogDb): Promise<LakeSchema[]> {
  const rows = await db.all(
    "SELECT schema_id, schema_name, path, path_is_relative, begin_snapshot, end_snapshot FROM ducklake_schema ORDER BY schema_id",
  );
  return rows.map((r) => ({
    ...range(r),
    schemaId: num(r.schema_id),
    name: String(r.schema_name),
    path: strOrNull(r.path),
    pathIsRelative: r.path_is_relative === null ? true : bool(r.path_is_relative),
  }));
}

/** Every table row. */
export async function readTables(db: CatalogDb): Promise<LakeTable[]> {
  const rows = await db.all(
    "SELECT table_id, CAST(table_uuid AS VARCHAR) AS table_uuid, schema_id, table_name, path, path_is_relative, begin_snapshot, end_snapshot FROM ducklake_table ORDER BY table_id, begin_snapshot",
  );
  return rows.map((r) => ({
    ...range(r),
    tableId: num(r.table_id),
    tableUuid: String(r.table_uuid),
    schemaId: num(r.schema_id),
    name: String(r.table_name),
    path: strOrNull(r.path),
    pathIsRelative: r.path_is_relative === null ? true : bool(r.path_is_relative),
  }));
}

/** Every column version of a table. */
export async function readColumns(db: CatalogDb, tableId: number): Promise<LakeColumn[]> {
  const rows = await db.all(
    "SELECT column_id, table_id, column_order, column_name, column_type, initial_default, default_value, nulls_allowed, parent_column, begin_snapshot, end_snapshot FROM ducklake_column WHERE table_id = ? ORDER BY column_order",
    [tableId],
  );
  return rows.map((r) => ({
    ...range(r),
    columnId: num(r.column_id),
    tableId: num(r.table_id),
    order: num(r.column_order),
    name: String(r.column_name),
    type: String(r.column_type),
    initialDefault: strOrNull(r.initial_default),
    defaultValue: strOrNull(r.default_value),
    nullsAllowed: r.nulls_allowed === null ? true : bool(r.nulls_allowed),
    parentColumn: numOrNull(r.parent_column),
  }));
}

/** `begin_snapshot <= s < end_snapshot` in SQL (two `?` for `s`): rows a snapshot sees, so a read is as long as the table, not its history. */
const VISIBLE_AT = "begin_snapshot <= ? AND (end_snapshot IS NULL OR end_snapshot > ?)";

/** The data file rows of a table: every one, or those visible at snapshot `at`. */
export async function readDataFiles(db: CatalogDb, tableId: number, at?: number): Promise<LakeDataFile[]> {
  const rows = await db.all(
    `SELECT data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path, path_is_relative, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max FROM ducklake_data_file WHERE table_id = ?${at === undefined ? "" : ` AND ${VISIBLE_AT}`} ORDER BY data_file_id`,
    at === undefined ? [tableId] : [tableId, at, at],
  );
  return rows.map((r) => ({
    ...range(r),
    dataFileId: num(r.data_file_id),
    tableId: num(r.table_id),
    fileOrder: numOrNull(r.file_order),
    path: String(r.path),
    pathIsRelative: bool(r.path_is_relative),
    recordCount: num(r.record_count),
    fileSizeBytes: num(r.file_size_bytes),
    footerSize: numOrNull(r.footer_size),
    rowIdStart: numOrNull(r.row_id_start),
    partitionId: numOrNull(r.partition_id),
    encryptionKey: strOrNull(r.encryption_key),
    mappingId: numOrNull(r.mapping_id),
    partialMax: numOrNull(r.partial_max),
  }));
}

/** The delete file rows of a table: every one, or those visible at snapshot `at`. */
export async function readDeleteFiles(db: CatalogDb, tableId: number, at?: number): Promise<LakeDeleteFile[]> {
  const rows = await db.all(
    `SELECT delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, encryption_key, partial_max FROM ducklake_delete_file WHERE table_id = ?${at === undefined ? "" : ` AND ${VISIBLE_AT}`} ORDER BY delete_file_id`,
    at === undefined ? [tableId] : [tableId, at, at],
  );
  return rows.map((r) => ({
    ...range(r),
    deleteFileId: num(r.delete_file_id),
    tableId: num(r.table_id),
    dataFileId: num(r.data_file_id),
    path: String(r.path),
    pathIsRelative: bool(r.path_is_relative),
    format: String(r.format ?? "parquet"),
    deleteCount: num(r.delete_count),
    fileSizeBytes: num(r.file_size_bytes),
    encryptionKey: strOrNull(r.encryption_key),
    partialMax: numOrNull(r.partial_max),
  }));
}

/** Identity partition keys of a table at snapshot `s` (column ids by key index) and the partition id. */
export async function readPartitioning(
  db: CatalogDb,
  tableId: number,
  s: number,
): Promise<{ partitionId: number; columns: Array<{ columnId: number; transform: string }> } | null> {
  const infos = await db.all(
    "SELECT partition_id, begin_snapshot, end_snapshot FROM ducklake_partition_info WHERE table_id = ?",
    [tableId],
  );
  const info = infos.find((r) => num(r.begin_snapshot) <= s && (r.end_snapshot === null || s < num(r.end_snapshot)));
  if (!info) return null;
  const partitionId = num(info.partition_id);
  const cols = await db.all(
    'SELECT column_id, "transform" AS t FROM ducklake_partition_column WHERE partition_id = ? AND table_id = ? ORDER BY partition_key_index',
    [partitionId, tableId],
  );
  return { partitionId, columns: cols.map((c) => ({ columnId: num(c.column_id), transform: String(c.t) })) };
}

/** Partition values of a table's data files (every one, or those visible at snapshot `at`), by data file id (ordered by key index). */
export async function readFilePartitionValues(
  db: CatalogDb,
  tableId: number,
  at?: number,
): Promise<Map<number, Array<string | null>>> {
  const out = new Map<number, Array<string | null>>();
  const visible =
    at === undefined
      ? ""
      : ` AND data_file_id IN (SELECT data_file_id FROM ducklake_data_file WHERE table_id = ? AND ${VISIBLE_AT})`;
  for (const r of await db.all(
    `SELECT data_file_id, partition_key_index, partition_value FROM ducklake_file_partition_value WHERE table_id = ?${visible} ORDER BY data_file_id, partition_key_index`,
    at === undefined ? [tableId] : [tableId, tableId, at, at],
  )) {
    const id = num(r.data_file_id);
    const list = out.get(id) ?? [];
    list[num(r.partition_key_index)] = strOrNull(r.partition_value);
    out.set(id, list);
  }
  return out;
}

/** The highest column id a table ever used (column ids are never reused). */
export async function readMaxColumnId(db: CatalogDb, tableId: number): Promise<number> {
  const [row] = await db.all("SELECT max(column_id) AS m FROM ducklake_column WHERE table_id = ?", [tableId]);
  return row && row.m !== null && row.m !== undefined ? num(row.m) : 0;
}
