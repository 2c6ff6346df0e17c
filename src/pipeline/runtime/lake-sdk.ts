/**
 * The engine side of the SDK's `ducklake(name)` helpers: writing rows given by code
 * (TypeScript, or Python over the bridge) as one managed write of a lake table, and reading
 * a table (optionally one partition, optionally at a snapshot). A partition is stored in the
 * `_partition` column, as a `// partitioned` SQL materialization stores it, so both kinds of
 * producers write the same tables.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqlString, withDuckDb } from "../../assets/duckdb.js";
import type { AssetHost } from "../../assets/host.js";
import { duckdbTypeOf } from "../../lake/column-types.js";
import { LakeError } from "../../lake/errors.js";
import { projectLakeExists, withProjectLake } from "../../lake/project-lake.js";
import type { SnapshotRef } from "../../lake/types.js";
import type { WriteMode } from "../../lake/writer.js";
import { committedBy } from "./runners/append-retry.js";
import { PARTITION_COLUMN } from "../partition-column.js";

/** A managed write of rows. */
export interface LakeRowsWrite {
  readonly mode: WriteMode;
  readonly key?: string;
  /** The slice is this partition (stored in `_partition`); absent: the whole table. */
  readonly partition?: string;
  /** The snapshot's author; for an append, a snapshot already committed under it is returned instead of appending again (a retry). */
  readonly author?: string;
}

/** What a write returns (the same shape as a SQL materialization). */
export interface LakeRowsResult {
  readonly asset: string;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly partition?: string;
}

/** A read of a table. */
export interface LakeRowsRead {
  readonly partition?: string;
  readonly version?: number;
  readonly timestamp?: string;
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkTable(table: string): void {
  if (!TABLE.test(table))
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `table ${JSON.stringify(table)} is not a plain table name; use letters, digits and _ (e.g. "orders_daily")`,
    );
}

/** A write's result for the caller, and the table's columns after it (for the schema history). */
export interface LakeRowsWritten {
  readonly result: LakeRowsResult;
  readonly columns: ReadonlyArray<{ name: string; type: string }>;
}

/** Write `rows` (plain objects) into `ducklake://<name>/<table>`. */
export async function writeLakeRows(
  assets: AssetHost,
  name: string,
  table: string,
  rows: readonly Record<string, unknown>[],
  write: LakeRowsWrite,
): Promise<LakeRowsWritten> {
  checkTable(table);
  if (!Array.isArray(rows) || rows.length === 0)
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      "rows must be a non-empty array of objects (one per row); the columns are taken from them",
    );
  const dir = mkdtempSync(join(tmpdir(), "sluice-lake-rows-"));
  try {
    const file = join(dir, "rows.ndjson");
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
    return await withProjectLake(assets, name, async (lake) => {
      const base = `SELECT * FROM read_json_auto(${sqlString(file)}, format = 'newline_delimited')`;
      const source =
        write.partition === undefined
          ? base
          : `SELECT *, ${sqlString(write.partition)} AS ${PARTITION_COLUMN} FROM (${base})`;
      const earlier =
        write.mode === "append" && write.author !== undefined ? await committedBy(lake, write.author) : undefined;
      const result =
        earlier ??
        (await withDuckDb([], (conn) =>
          lake.write(conn, {
            table,
            source,
            mode: write.mode,
            ...(write.key && { key: write.key }),
            ...(write.partition !== undefined && { partition: { [PARTITION_COLUMN]: write.partition } }),
            ...(write.author !== undefined && { author: write.author }),
          }),
        ));
      const columns = (await lake.reader.columns(table, { kind: "version", snapshotId: result.snapshotId })).map(
        (c) => ({ name: c.name, type: duckdbTypeOf(c.type) }),
      );
      return {
        result: {
          asset: `ducklake://${name}/${table}`,
          rows: result.rows,
          snapshot_id: result.snapshotId,
          ...(write.partition !== undefined && { partition: write.partition }),
        },
        columns,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Read `ducklake://<name>/<table>` (rows as JSON values). @throws LakeError LAKE_NOT_FOUND for a lake that does not exist (nothing is created) */
export async function readLakeRows(
  assets: AssetHost,
  name: string,
  table: string,
  read: LakeRowsRead = {},
): Promise<Record<string, unknown>[]> {
  checkTable(table);
  const ref: SnapshotRef =
    read.version !== undefined
      ? { kind: "version", snapshotId: read.version }
      : read.timestamp !== undefined
        ? { kind: "timestamp", at: read.timestamp }
        : { kind: "latest" };
  const where = read.partition === undefined ? "" : ` WHERE ${PARTITION_COLUMN} = ${sqlString(read.partition)}`;
  if (!(await projectLakeExists(assets, name)))
    throw new LakeError(
      "LAKE_NOT_FOUND",
      `lake ${name} does not exist (nothing was ever written into ducklake://${name}), so it has no table ${table} to read; check the lake's name`,
    );
  return withProjectLake(assets, name, (lake) => lake.reader.query(table, ref, `SELECT * FROM {table}${where}`));
}
