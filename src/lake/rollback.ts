/**
 * Rolling a table back: a new snapshot whose content equals the table at an older one
 * (history is kept; the rollback itself can be rolled back). In one catalog transaction:
 * the current files and delete files end, the files visible at the old snapshot are
 * registered again under new file ids (same Parquet files, statistics and partition values
 * copied), and the column versions of the old snapshot come back when they differ.
 */
import { type CatalogDb, type CatalogRow, num } from "./catalog-db.js";
import { catalogTime } from "./catalog-commit.js";
import { formatChanges, type SnapshotChange } from "./changes.js";
import { LakeError, LakeUnsupportedError, SnapshotNotFoundError, TableNotFoundError } from "./errors.js";
import { qualifiedName, type LakeReader } from "./reader.js";
import { visibleAt } from "./visibility.js";

const range = (r: CatalogRow) => ({
  beginSnapshot: num(r.begin_snapshot),
  endSnapshot: r.end_snapshot === null ? null : num(r.end_snapshot),
});
const at = (rows: CatalogRow[], s: number) => rows.filter((r) => visibleAt(range(r), s));
const COLUMN_FIELDS = [
  "column_id",
  "column_order",
  "column_name",
  "column_type",
  "initial_default",
  "default_value",
  "nulls_allowed",
  "parent_column",
  "default_value_type",
  "default_value_dialect",
] as const;
const columnKey = (r: CatalogRow) => JSON.stringify(COLUMN_FIELDS.map((f) => r[f] ?? null));

/** Roll table `name` back to its content at snapshot `to`. @returns the new snapshot id */
export async function rollbackTable(
  db: CatalogDb,
  lake: LakeReader,
  name: string,
  to: number,
  now = new Date(),
): Promise<number> {
  const full = qualifiedName(name);
  return db.transaction(async () => {
    const [last] = await db.all(
      "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1",
    );
    const latest = num(last!.snapshot_id);
    if (
      to < 0 ||
      to > latest ||
      !(await db.all("SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id = ?", [to])).length
    )
      throw new SnapshotNotFoundError(`with version ${to}`);
    const then = await lake.findTable(full, to);
    const current = await lake.findTable(full, latest);
    if (!then) throw new TableNotFoundError(full, to);
    if (!current)
      throw new LakeUnsupportedError(`rolling back a dropped table (${full} does not exist at snapshot ${latest})`);
    if (then.table.tableId !== current.table.tableId)
      throw new LakeUnsupportedError(`rolling back across a re-creation of ${full} (it is another table now)`);
    const t = current.table.tableId;
    const parts = await db.all(
      "SELECT partition_id, begin_snapshot, end_snapshot FROM ducklake_partition_info WHERE table_id = ?",
      [t],
    );
    const partThen = at(parts, to)[0]?.partition_id ?? null;
    const partNow = at(parts, latest)[0]?.partition_id ?? null;
    if (partThen !== partNow) throw new LakeUnsupportedError(`rolling back across a change of ${full}'s partitioning`);
    const s = latest + 1;
    let nextFileId = num(last!.next_file_id);

    const columns = await db.all(
      `SELECT ${COLUMN_FIELDS.join(", ")}, begin_snapshot, end_snapshot FROM ducklake_column WHERE table_id = ?`,
      [t],
    );
    const colsThen = at(columns, to);
    const colsNow = at(columns, latest);
    const same = colsThen.map(columnKey).sort().join("|") === colsNow.map(columnKey).sort().join("|");
    if (!same) {
      await db.run("UPDATE ducklake_column SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL", [s, t]);
      for (const c of colsThen) {
        await db.run(
          `INSERT INTO ducklake_column (${COLUMN_FIELDS.join(", ")}, begin_snapshot, end_snapshot, table_id) VALUES (${COLUMN_FIELDS.map(() => "?").join(", ")}, ?, NULL, ?)`,
          [...COLUMN_FIELDS.map((f) => c[f] ?? null), s, t],
        );
      }
    }
    const files = await db.all("SELECT * FROM ducklake_data_file WHERE table_id = ?", [t]);
    const deletes = await db.all("SELECT * FROM ducklake_delete_file WHERE table_id = ?", [t]);
    const filesThen = at(files, to);
    const deletesThen = at(deletes, to);
    for (const f of filesThen)
      if (f.partial_max !== null && num(f.partial_max) > to)
        throw new LakeUnsupportedError("rolling back into a partial data file");
    for (const d of deletesThen)
      if (d.partial_max !== null && num(d.partial_max) > to)
        throw new LakeUnsupportedError("rolling back to a snapshot inside a partial delete file");
    const deleted = at(files, latest).length > 0 || at(deletes, latest).length > 0;
    await db.run("UPDATE ducklake_data_file SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL", [s, t]);
    await db.run("UPDATE ducklake_delete_file SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL", [
      s,
      t,
    ]);
    for (const f of filesThen) {
      const id = nextFileId++;
      const old = num(f.data_file_id);
      await db.run(
        "INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
          id,
          t,
          s,
          f.file_order,
          f.path,
          f.path_is_relative,
          f.file_format,
          f.record_count,
          f.file_size_bytes,
          f.footer_size,
          f.row_id_start,
          f.partition_id,
          f.encryption_key,
          f.mapping_id,
          f.partial_max,
        ],
      );
      for (const st of await db.all("SELECT * FROM ducklake_file_column_stats WHERE data_file_id = ?", [old])) {
        await db.run(
          "INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value, contains_nan, extra_stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          [
            id,
            t,
            st.column_id,
            st.column_size_bytes,
            st.value_count,
            st.null_count,
            st.min_value,
            st.max_value,
            st.contains_nan,
            st.extra_stats,
          ],
        );
      }
      for (const pv of await db.all(
        "SELECT partition_key_index, partition_value FROM ducklake_file_partition_value WHERE data_file_id = ?",
        [old],
      )) {
        await db.run(
          "INSERT INTO ducklake_file_partition_value (data_file_id, table_id, partition_key_index, partition_value) VALUES (?, ?, ?, ?)",
          [id, t, pv.partition_key_index, pv.partition_value],
        );
      }
      const d = deletesThen.find((x) => num(x.data_file_id) === old);
      if (d) {
        await db.run(
          "INSERT INTO ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key, partial_max) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
          [
            nextFileId++,
            t,
            s,
            id,
            d.path,
            d.path_is_relative,
            d.format,
            d.delete_count,
            d.file_size_bytes,
            d.footer_size,
            d.encryption_key,
          ],
        );
      }
    }
    const changes: SnapshotChange[] = [];
    if (!same) changes.push({ kind: "altered_table", tableId: t });
    if (filesThen.length) changes.push({ kind: "inserted_into_table", tableId: t });
    if (deleted) changes.push({ kind: "deleted_from_table", tableId: t });
    if (changes.length === 0)
      throw new LakeError(
        "LAKE_WRITE_INVALID",
        `${full} is empty at snapshot ${to} and now; there is nothing to roll back`,
      );
    const schemaVersion = num(last!.schema_version) + (same ? 0 : 1);
    if (!same)
      await db.run("INSERT INTO ducklake_schema_versions (begin_snapshot, schema_version, table_id) VALUES (?, ?, ?)", [
        s,
        schemaVersion,
        t,
      ]);
    await db.run(
      "INSERT INTO ducklake_snapshot (snapshot_id, snapshot_time, schema_version, next_catalog_id, next_file_id) VALUES (?, ?, ?, ?, ?)",
      [s, catalogTime(now), schemaVersion, num(last!.next_catalog_id), nextFileId],
    );
    await db.run(
      "INSERT INTO ducklake_snapshot_changes (snapshot_id, changes_made, author, commit_message, commit_extra_info) VALUES (?, ?, NULL, ?, NULL)",
      [s, formatChanges(changes), `rollback ${full} to snapshot ${to}`],
    );
    return s;
  });
}
