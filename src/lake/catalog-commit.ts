/**
 * Publishing one write as one DuckLake snapshot, in one catalog transaction (I/O; the
 * decisions are made by the writer before). The transaction re-reads the latest snapshot,
 * checks that nothing it depends on changed since the snapshot the write was planned on
 * (else {@link LakeError} `LAKE_COMMIT_CONFLICT`, and the writer plans again), then writes
 * the snapshot, its changes, the table and its columns when they change, the files, their
 * statistics and partition values, and the table's statistics.
 */
import { randomUUID } from "node:crypto";
import { bool, type CatalogDb, type CatalogRow, num, strOrNull } from "./catalog-db.js";
import { formatChanges, type SnapshotChange } from "./changes.js";
import { LakeError } from "./errors.js";
import type { WrittenDataFile, WrittenFile } from "./file-writer.js";
import { mergeColumnStats, type TableColumnStats } from "./stats.js";
import type { ColumnPlan } from "./write-plan.js";

/** Everything one write publishes. */
export interface CommitPlan {
  /** The snapshot the write was planned on. */
  readonly baseSnapshot: number;
  readonly schemaId: number;
  readonly schemaName: string;
  readonly tableName: string;
  /** The existing table, or undefined to create it in this snapshot. */
  readonly tableId?: number;
  /** Column ids of identity partition keys for a table created here (empty: unpartitioned). */
  readonly createPartitionColumns?: readonly number[];
  /** The table's partition id (existing tables), for new data files. */
  readonly partitionId?: number | null;
  readonly columns: ColumnPlan;
  readonly newFiles: readonly WrittenDataFile[];
  /** Data files that leave the table (with their delete files). */
  readonly endFiles: readonly number[];
  /** New delete files, each replacing the data file's current one (if any). */
  readonly newDeletes: ReadonlyArray<{
    readonly dataFileId: number;
    readonly replaces: number | null;
    readonly file: WrittenFile;
  }>;
  /** Files added to the slice since the base snapshot conflict (replace and merge); undefined for appends. */
  readonly sliceGuard?: { readonly partitionValues: readonly string[] | null };
  readonly author?: string;
  readonly commitMessage?: string;
}

/** What a commit produced. */
export interface CommitResult {
  readonly snapshotId: number;
  readonly tableId: number;
  /** Ids of the new data files, in the order of `newFiles`. */
  readonly dataFileIds: readonly number[];
  /** The snapshot was made straight on the plan's base one (no other commit in between). */
  readonly onBase: boolean;
}

function conflict(what: string): never {
  throw new LakeError(
    "LAKE_COMMIT_CONFLICT",
    `another writer committed to this table meanwhile (${what}); the write is planned again on the new snapshot`,
  );
}

/** Format a time as the SQLite catalog stores TIMESTAMP WITH TIME ZONE. */
export function catalogTime(date: Date): string {
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 23)}000+00`;
}

async function checkConflicts(db: CatalogDb, plan: CommitPlan, latest: number): Promise<void> {
  if (plan.tableId === undefined) {
    const rows = await db.all(
      "SELECT table_id FROM ducklake_table WHERE schema_id = ? AND table_name = ? AND end_snapshot IS NULL",
      [plan.schemaId, plan.tableName],
    );
    if (rows.length) conflict(`table ${plan.tableName} was created`);
    return;
  }
  const t = plan.tableId;
  const alive = await db.all("SELECT table_id FROM ducklake_table WHERE table_id = ? AND end_snapshot IS NULL", [t]);
  if (!alive.length) conflict(`table ${plan.tableName} was dropped`);
  if (latest === plan.baseSnapshot) return;
  const b = plan.baseSnapshot;
  const altered = await db.all(
    "SELECT column_id FROM ducklake_column WHERE table_id = ? AND (begin_snapshot > ? OR end_snapshot > ?)",
    [t, b, b],
  );
  if (altered.length) conflict("its columns changed");
  for (const id of plan.endFiles) {
    const rows = await db.all(
      "SELECT data_file_id FROM ducklake_data_file WHERE data_file_id = ? AND end_snapshot IS NULL",
      [id],
    );
    if (!rows.length) conflict(`data file ${id} was replaced`);
  }
  for (const d of plan.newDeletes) {
    const rows = await db.all(
      "SELECT delete_file_id FROM ducklake_delete_file WHERE data_file_id = ? AND begin_snapshot > ?",
      [d.dataFileId, b],
    );
    if (rows.length) conflict(`rows of data file ${d.dataFileId} were deleted`);
    const ended = await db.all(
      "SELECT data_file_id FROM ducklake_data_file WHERE data_file_id = ? AND end_snapshot IS NOT NULL",
      [d.dataFileId],
    );
    if (ended.length) conflict(`data file ${d.dataFileId} was replaced`);
  }
  if (plan.sliceGuard) {
    const added = await db.all(
      "SELECT data_file_id FROM ducklake_data_file WHERE table_id = ? AND begin_snapshot > ?",
      [t, b],
    );
    for (const row of added) {
      const values = plan.sliceGuard.partitionValues;
      if (values === null) conflict("rows were added to the table");
      const pv = await db.all(
        "SELECT partition_key_index, partition_value FROM ducklake_file_partition_value WHERE data_file_id = ? ORDER BY partition_key_index",
        [num(row.data_file_id)],
      );
      if (pv.length === values.length && pv.every((r, i) => strOrNull(r.partition_value) === values[i]))
        conflict("rows were added to the same partition");
    }
  }
}

/** Options of {@link commitWrite}. */
export interface CommitOptions {
  /**
   * Settles when the plan's files are on the disk (or uploaded). The transaction writes its rows
   * meanwhile and commits only once it resolves (rejected: nothing is committed, and the error is
   * thrown), so the catalog's work overlaps the files' flush without ever naming a file that
   * is not durable yet.
   */
  readonly durable?: Promise<unknown>;
  /** The snapshot's time (default: now). */
  readonly now?: Date;
}

/** Apply `plan` as the next snapshot. @throws LakeError `LAKE_COMMIT_CONFLICT`, or `durable`'s error */
export async function commitWrite(db: CatalogDb, plan: CommitPlan, options: CommitOptions = {}): Promise<CommitResult> {
  const now = options.now ?? new Date();
  return db.transaction(async () => {
    const [last] = await db.all(
      "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1",
    );
    if (!last) throw new LakeError("LAKE_CATALOG_INVALID", "the catalog has no snapshot; create the lake first");
    const latest = num(last.snapshot_id);
    await checkConflicts(db, plan, latest);
    const s = latest + 1;
    let nextCatalogId = num(last.next_catalog_id);
    let nextFileId = num(last.next_file_id);
    const changes: SnapshotChange[] = [];
    let schemaChanged = plan.columns.ended.length > 0 || plan.columns.added.length > 0;
    let tableId = plan.tableId;
    let partitionId = plan.partitionId ?? null;
    if (tableId === undefined) {
      tableId = nextCatalogId++;
      schemaChanged = true;
      changes.push({ kind: "created_table", schema: plan.schemaName, table: plan.tableName });
      await db.run(
        "INSERT INTO ducklake_table (table_id, table_uuid, begin_snapshot, end_snapshot, schema_id, table_name, path, path_is_relative) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)",
        [tableId, randomUUID(), s, plan.schemaId, plan.tableName, `${plan.tableName}/`, true],
      );
      await db.run(
        "INSERT INTO ducklake_table_stats (table_id, record_count, next_row_id, file_size_bytes) VALUES (?, 0, 0, 0)",
        [tableId],
      );
      if (plan.createPartitionColumns?.length) {
        partitionId = nextCatalogId++;
        await db.run(
          "INSERT INTO ducklake_partition_info (partition_id, table_id, begin_snapshot, end_snapshot) VALUES (?, ?, ?, NULL)",
          [partitionId, tableId, s],
        );
        for (const [i, columnId] of plan.createPartitionColumns.entries()) {
          await db.run(
            "INSERT INTO ducklake_partition_column (partition_id, table_id, partition_key_index, column_id, \"transform\") VALUES (?, ?, ?, ?, 'identity')",
            [partitionId, tableId, i, columnId],
          );
        }
      }
    } else if (schemaChanged) {
      changes.push({ kind: "altered_table", tableId });
    }
    // a new version of a column (moved, or its type promoted) keeps the previous version's defaults
    const previous = new Map<number, CatalogRow>();
    for (const id of plan.columns.ended) {
      const [row] = await db.all(
        "SELECT initial_default, default_value, nulls_allowed, default_value_type, default_value_dialect FROM ducklake_column WHERE table_id = ? AND column_id = ? AND end_snapshot IS NULL",
        [tableId, id],
      );
      if (row) previous.set(id, row);
      await db.run(
        "UPDATE ducklake_column SET end_snapshot = ? WHERE table_id = ? AND column_id = ? AND end_snapshot IS NULL",
        [s, tableId, id],
      );
    }
    for (const c of plan.columns.added) {
      const p = previous.get(c.columnId);
      await db.run(
        "INSERT INTO ducklake_column (column_id, begin_snapshot, end_snapshot, table_id, column_order, column_name, column_type, initial_default, default_value, nulls_allowed, parent_column, default_value_type, default_value_dialect) VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
        [
          c.columnId,
          s,
          tableId,
          c.order,
          c.name,
          c.lakeType,
          p ? p.initial_default : null,
          p ? p.default_value : "NULL",
          p ? p.nulls_allowed : true,
          p ? p.default_value_type : "literal",
          p ? p.default_value_dialect : "duckdb",
        ],
      );
    }
    const schemaVersion = num(last.schema_version) + (schemaChanged ? 1 : 0);
    if (schemaChanged)
      await db.run("INSERT INTO ducklake_schema_versions (begin_snapshot, schema_version, table_id) VALUES (?, ?, ?)", [
        s,
        schemaVersion,
        tableId,
      ]);

    const deleted = plan.endFiles.length > 0 || plan.newDeletes.length > 0;
    for (const id of plan.endFiles) {
      await db.run("UPDATE ducklake_data_file SET end_snapshot = ? WHERE data_file_id = ? AND end_snapshot IS NULL", [
        s,
        id,
      ]);
      await db.run("UPDATE ducklake_delete_file SET end_snapshot = ? WHERE data_file_id = ? AND end_snapshot IS NULL", [
        s,
        id,
      ]);
    }
    for (const d of plan.newDeletes) {
      if (d.replaces !== null)
        await db.run(
          "UPDATE ducklake_delete_file SET end_snapshot = ? WHERE delete_file_id = ? AND end_snapshot IS NULL",
          [s, d.replaces],
        );
      await db.run(
        "INSERT INTO ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key, partial_max) VALUES (?, ?, ?, NULL, ?, ?, ?, 'parquet', ?, ?, ?, NULL, NULL)",
        [
          nextFileId++,
          tableId,
          s,
          d.dataFileId,
          d.file.relPath,
          true,
          d.file.recordCount,
          d.file.fileSizeBytes,
          d.file.footerSize,
        ],
      );
    }

    const dataFileIds: number[] = [];
    if (plan.newFiles.length) {
      changes.push({ kind: "inserted_into_table", tableId });
      const [ts] = await db.all(
        "SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = ?",
        [tableId],
      );
      let nextRowId = ts ? num(ts.next_row_id) : 0;
      let records = ts ? num(ts.record_count) : 0;
      let bytes = ts ? num(ts.file_size_bytes) : 0;
      const tableStats = new Map<number, TableColumnStats>();
      for (const r of await db.all(
        "SELECT column_id, contains_null, contains_nan, min_value, max_value FROM ducklake_table_column_stats WHERE table_id = ?",
        [tableId],
      )) {
        tableStats.set(num(r.column_id), {
          columnId: num(r.column_id),
          containsNull: bool(r.contains_null),
          containsNan: r.contains_nan === null ? null : bool(r.contains_nan),
          min: strOrNull(r.min_value),
          max: strOrNull(r.max_value),
        });
      }
      const typeOf = new Map(plan.columns.columns.map((c) => [c.columnId, c.lakeType]));
      for (const f of plan.newFiles) {
        const id = nextFileId++;
        dataFileIds.push(id);
        await db.run(
          "INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max) VALUES (?, ?, ?, NULL, NULL, ?, ?, 'parquet', ?, ?, ?, ?, ?, NULL, NULL, NULL)",
          [
            id,
            tableId,
            s,
            f.relPath,
            true,
            f.recordCount,
            f.fileSizeBytes,
            f.footerSize,
            nextRowId,
            f.partitionValues ? partitionId : null,
          ],
        );
        nextRowId += f.recordCount;
        records += f.recordCount;
        bytes += f.fileSizeBytes;
        for (const [i, v] of (f.partitionValues ?? []).entries()) {
          await db.run(
            "INSERT INTO ducklake_file_partition_value (data_file_id, table_id, partition_key_index, partition_value) VALUES (?, ?, ?, ?)",
            [id, tableId, i, v],
          );
        }
        for (const st of f.stats) {
          await db.run(
            "INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value, contains_nan, extra_stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            [id, tableId, st.columnId, st.columnSizeBytes, st.valueCount, st.nullCount, st.min, st.max, st.containsNan],
          );
          tableStats.set(
            st.columnId,
            mergeColumnStats(typeOf.get(st.columnId) ?? "varchar", tableStats.get(st.columnId), st),
          );
        }
      }
      await db.run(
        "UPDATE ducklake_table_stats SET record_count = ?, next_row_id = ?, file_size_bytes = ? WHERE table_id = ?",
        [records, nextRowId, bytes, tableId],
      );
      await db.run("DELETE FROM ducklake_table_column_stats WHERE table_id = ?", [tableId]);
      for (const st of tableStats.values()) {
        await db.run(
          "INSERT INTO ducklake_table_column_stats (table_id, column_id, contains_null, contains_nan, min_value, max_value, extra_stats) VALUES (?, ?, ?, ?, ?, ?, NULL)",
          [tableId, st.columnId, st.containsNull, st.containsNan, st.min, st.max],
        );
      }
    }
    if (deleted) changes.push({ kind: "deleted_from_table", tableId });
    await db.run(
      "INSERT INTO ducklake_snapshot (snapshot_id, snapshot_time, schema_version, next_catalog_id, next_file_id) VALUES (?, ?, ?, ?, ?)",
      [s, catalogTime(now), schemaVersion, nextCatalogId, nextFileId],
    );
    await db.run(
      "INSERT INTO ducklake_snapshot_changes (snapshot_id, changes_made, author, commit_message, commit_extra_info) VALUES (?, ?, ?, ?, NULL)",
      [s, formatChanges(changes), plan.author ?? null, plan.commitMessage ?? null],
    );
    // the COMMIT (when this function returns) waits for the files the snapshot names
    await options.durable;
    return { snapshotId: s, tableId, dataFileIds, onBase: latest === plan.baseSnapshot };
  });
}
