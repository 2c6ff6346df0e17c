/**
 * Writing Parquet files for a lake through DuckDB (I/O): data files with Parquet field ids
 * equal to the DuckLake column ids (one per partition value when the table is
 * partitioned, in hive-style folders `col=value/`), their per-column statistics, and
 * positional delete files (`file_path`, `pos`, with the field ids the extension uses).
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../assets/duckdb.js";
import { duckdbTypeOf, isFloat } from "./column-types.js";
import { LakeError } from "./errors.js";
import { jsonRows } from "./json-rows.js";
import { ident } from "./scan-plan.js";
import { type FileColumnStats, statExpression } from "./stats.js";
import type { TargetColumn } from "./write-plan.js";

/** Field ids of the delete file columns (as the DuckLake extension writes them). */
export const DELETE_FIELD_IDS = { file_path: 2147483646, pos: 2147483645 } as const;

/** A Parquet file written for a commit. */
export interface WrittenFile {
  /** Absolute path on disk. */
  readonly path: string;
  /** Path relative to the table's folder (as stored in the catalog). */
  readonly relPath: string;
  readonly recordCount: number;
  readonly fileSizeBytes: number;
  readonly footerSize: number;
}

/** A data file written for a commit, with its statistics and partition values. */
export interface WrittenDataFile extends WrittenFile {
  readonly stats: readonly FileColumnStats[];
  /** Partition values by partition key index (identity transform), or null when unpartitioned. */
  readonly partitionValues: readonly string[] | null;
}

/** A time-ordered random UUID (version 7), as the extension names its files. */
export function uuidv7(now = Date.now()): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let ts = BigInt(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ts & 0xffn);
    ts >>= 8n;
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Size and Parquet footer length of a written file. */
export function fileFacts(path: string): { size: number; footer: number } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(8);
    readSync(fd, tail, 0, 8, size - 8);
    if (tail.toString("latin1", 4, 8) !== "PAR1") throw new LakeError("LAKE_WRITE_INVALID", `${path} is not a Parquet file (no PAR1 magic at its end)`);
    return { size, footer: tail.readUInt32LE(0) };
  } finally {
    closeSync(fd);
  }
}

function hiveSegment(name: string, value: string): string {
  return `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}

async function columnStats(conn: DuckDBConnection, path: string, columns: readonly TargetColumn[]): Promise<FileColumnStats[]> {
  const parts = columns.flatMap((c, i) => {
    const e = ident(c.name);
    return [
      `count(${e}) AS v${i}`, `count(*) - count(${e}) AS n${i}`,
      `${statExpression(c.lakeType, e, "min")} AS lo${i}`, `${statExpression(c.lakeType, e, "max")} AS hi${i}`,
      isFloat(c.lakeType) ? `coalesce(bool_or(isnan(${e})), false) AS nan${i}` : `NULL AS nan${i}`,
    ];
  });
  const [row] = jsonRows(await conn.runAndReadAll(`SELECT ${parts.join(", ")} FROM read_parquet(${sqlString(path)}, hive_partitioning = false)`));
  const sizes = new Map<string, number>();
  for (const r of jsonRows(await conn.runAndReadAll(`SELECT path_in_schema AS p, sum(total_compressed_size) AS s FROM parquet_metadata(${sqlString(path)}) GROUP BY ALL`))) {
    sizes.set(String(r.p), Number(r.s));
  }
  return columns.map((c, i) => ({
    columnId: c.columnId,
    columnSizeBytes: sizes.get(c.name) ?? null,
    valueCount: Number(row![`v${i}`]),
    nullCount: Number(row![`n${i}`]),
    min: (row![`lo${i}`] as string | null) ?? null,
    max: (row![`hi${i}`] as string | null) ?? null,
    containsNan: isFloat(c.lakeType) ? Boolean(row![`nan${i}`]) : null,
  }));
}

/** Options of {@link writeDataFiles}. */
export interface DataFileRequest {
  /** A relation (temp table) holding the slice. */
  readonly slice: string;
  readonly columns: readonly TargetColumn[];
  /** Absolute folder of the table's files. */
  readonly tableDir: string;
  /** Identity partition columns, by key index. */
  readonly partitionColumns: readonly TargetColumn[];
}

/** Write the slice as Parquet data files (none when it is empty). */
export async function writeDataFiles(conn: DuckDBConnection, req: DataFileRequest): Promise<WrittenDataFile[]> {
  const select = req.columns.map((c) => `${c.inSource ? `CAST(${ident(c.name)} AS ${duckdbTypeOf(c.lakeType)})` : `CAST(NULL AS ${duckdbTypeOf(c.lakeType)})`} AS ${ident(c.name)}`).join(", ");
  const fieldIds = req.columns.map((c) => `${sqlString(c.name)}: ${c.columnId}`).join(", ");
  let groups: Array<{ values: string[] | null; where: string }> = [{ values: null, where: "" }];
  if (req.partitionColumns.length) {
    const keys = req.partitionColumns.map((c) => `CAST(${ident(c.name)} AS VARCHAR)`);
    const rows = jsonRows(await conn.runAndReadAll(`SELECT DISTINCT ${keys.map((k, i) => `${k} AS k${i}`).join(", ")} FROM ${req.slice} ORDER BY ALL`));
    groups = rows.map((r) => {
      const values = req.partitionColumns.map((c, i) => {
        const v = r[`k${i}`];
        if (v === null || v === undefined) throw new LakeError("LAKE_WRITE_INVALID", `partition column ${c.name} is NULL in some rows of the slice; a partition value cannot be NULL, so filter or fill those rows in the SELECT`);
        return String(v);
      });
      return { values, where: ` WHERE ${keys.map((k, i) => `${k} = ${sqlString(values[i]!)}`).join(" AND ")}` };
    });
  }
  const out: WrittenDataFile[] = [];
  for (const g of groups) {
    const [count] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM ${req.slice}${g.where}`));
    const n = Number(count!.n);
    if (n === 0) continue;
    const folder = g.values ? req.partitionColumns.map((c, i) => hiveSegment(c.name, g.values![i]!)).join("/") : "";
    const name = `ducklake-${uuidv7()}.parquet`;
    const relPath = folder ? `${folder}/${name}` : name;
    const path = join(req.tableDir, relPath);
    mkdirSync(dirname(path), { recursive: true });
    await conn.run(`COPY (SELECT ${select} FROM ${req.slice}${g.where}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION snappy, FIELD_IDS {${fieldIds}})`);
    const facts = fileFacts(path);
    out.push({ path, relPath, recordCount: n, fileSizeBytes: facts.size, footerSize: facts.footer, stats: await columnStats(conn, path, req.columns), partitionValues: g.values });
  }
  return out;
}

/** Write a positional delete file for `dataPath` holding the positions `positionsSql` returns (a `pos` column). */
export async function writeDeleteFile(conn: DuckDBConnection, tableDir: string, dataPath: string, positionsSql: string): Promise<WrittenFile> {
  const name = `ducklake-${uuidv7()}-delete.parquet`;
  const path = join(tableDir, name);
  mkdirSync(dirname(path), { recursive: true });
  await conn.run(
    `COPY (SELECT ${sqlString(dataPath)} AS file_path, CAST(pos AS BIGINT) AS pos FROM (${positionsSql}) ORDER BY pos) TO ${sqlString(path)} ` +
      `(FORMAT parquet, COMPRESSION snappy, FIELD_IDS {file_path: ${DELETE_FIELD_IDS.file_path}, pos: ${DELETE_FIELD_IDS.pos}})`,
  );
  const [count] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlString(path)})`));
  const facts = fileFacts(path);
  return { path, relPath: name, recordCount: Number(count!.n), fileSizeBytes: facts.size, footerSize: facts.footer };
}
