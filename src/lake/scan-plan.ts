/**
 * The DuckDB query that reads a DuckLake table at a snapshot (pure). Each visible data file
 * is read with `read_parquet(…, schema = MAP {field_id: {name, type, default_value}})`, so
 * columns are matched by Parquet field id (= DuckLake column id): renamed columns read
 * under their current name, columns added later read their `initial_default`, dropped
 * columns are ignored. Rows listed in the file's delete file (`pos`, filtered by
 * `_ducklake_internal_snapshot_id` for partial delete files) are removed.
 */
import { sqlString } from "../assets/duckdb.js";

/** A column as the scan needs it. */
export interface ScanColumn {
  readonly columnId: number;
  readonly name: string;
  /** DuckDB type. */
  readonly type: string;
  /** `initial_default` (for files written before the column existed), or null. */
  readonly initialDefault: string | null;
}

/** One data file to read. */
export interface ScanFile {
  readonly dataPath: string;
  readonly deletePath?: string;
  /** The delete file is partial: keep only its rows of snapshots up to the one read. */
  readonly deletePartial?: boolean;
}

/** A SQL identifier, double-quoted. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Defaults go in as VARCHAR (one MAP value type for all columns); DuckDB casts them to the column type. */
function defaultOf(c: ScanColumn): string {
  return c.initialDefault === null ? "CAST(NULL AS VARCHAR)" : `CAST(${sqlString(c.initialDefault)} AS VARCHAR)`;
}

function fileSelect(columns: readonly ScanColumn[], file: ScanFile, snapshot: number): string {
  const schema = columns
    .map(
      (c) =>
        `${c.columnId}: {name: ${sqlString(`c${c.columnId}`)}, type: ${sqlString(c.type)}, default_value: ${defaultOf(c)}}`,
    )
    .join(", ");
  const projection = columns.map((c) => `c${c.columnId} AS ${ident(c.name)}`).join(", ");
  let sql = `SELECT ${projection} FROM read_parquet(${sqlString(file.dataPath)}, schema = MAP {${schema}}, file_row_number = true, hive_partitioning = false)`;
  if (file.deletePath) {
    const filter = file.deletePartial ? ` WHERE _ducklake_internal_snapshot_id <= ${snapshot}` : "";
    sql += ` WHERE file_row_number NOT IN (SELECT pos FROM read_parquet(${sqlString(file.deletePath)})${filter})`;
  }
  return sql;
}

/** The SELECT that returns the table's rows at `snapshot` with its columns in order. */
export function scanSql(columns: readonly ScanColumn[], files: readonly ScanFile[], snapshot: number): string {
  if (columns.length === 0) return "SELECT NULL WHERE false";
  if (files.length === 0)
    return `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${ident(c.name)}`).join(", ")} WHERE false`;
  return files.map((f) => fileSelect(columns, f, snapshot)).join("\nUNION ALL\n");
}
