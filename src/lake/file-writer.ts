/**
 * Writing Parquet files for a lake through DuckDB (I/O): data files with Parquet field ids
 * equal to the DuckLake column ids (one per partition value when the table is
 * partitioned, in hive-style folders `col=value/`), their per-column statistics, and
 * positional delete files (`file_path`, `pos`, with the field ids the extension uses). A
 * partitioned slice is written by one `COPY … PARTITION_BY` (the partition columns stay in
 * the files, as the extension keeps them). Each file's row count, size, footer size, column
 * statistics and partition values come from the COPY itself (`RETURN_STATS`, what the
 * extension uses), so nothing is read back; a file whose returned statistics miss something
 * Sluice records is read back instead.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve as resolvePath, sep } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../assets/duckdb.js";
import { duckdbTypeOf, hasMinMax, isFloat } from "./column-types.js";
import { LakeError } from "./errors.js";
import { jsonRows } from "../assets/duckdb-json.js";
import { ident } from "./scan-plan.js";
import { type FileColumnStats, statExpression } from "./stats.js";
import type { TargetColumn } from "./write-plan.js";

/** Field ids of the delete file columns (as the DuckLake extension writes them). */
const DELETE_FIELD_IDS = { file_path: 2147483646, pos: 2147483645 } as const;

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
function uuidv7(now = Date.now()): string {
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
function fileFacts(path: string): { size: number; footer: number } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(8);
    readSync(fd, tail, 0, 8, size - 8);
    if (tail.toString("latin1", 4, 8) !== "PAR1")
      throw new LakeError("LAKE_WRITE_INVALID", `${path} is not a Parquet file (no PAR1 magic at its end)`);
    return { size, footer: tail.readUInt32LE(0) };
  } finally {
    closeSync(fd);
  }
}

interface FileFacts {
  readonly stats: FileColumnStats[];
  readonly rows: number;
  readonly partitionValues: string[] | null;
}

/** Compressed bytes per file and top-level column (`<path>\u0000<column>`), from the Parquet metadata only. */
async function columnSizes(conn: DuckDBConnection, paths: readonly string[]): Promise<Map<string, number>> {
  const list = `[${paths.map(sqlString).join(", ")}]`;
  const sizes = new Map<string, number>();
  for (const r of jsonRows(
    await conn.runAndReadAll(
      `SELECT file_name AS f, path_in_schema AS p, sum(total_compressed_size) AS s FROM parquet_metadata(${list}) GROUP BY ALL`,
    ),
  ))
    sizes.set(`${r.f}\u0000${r.p}`, Number(r.s));
  return sizes;
}

/** Row counts, column statistics and partition values of freshly written files, in two queries for all of them. */
async function readFileFacts(
  conn: DuckDBConnection,
  paths: readonly string[],
  columns: readonly TargetColumn[],
  partitionColumns: readonly TargetColumn[],
): Promise<Map<string, FileFacts>> {
  const parts = [
    "filename AS f",
    "count(*) AS total",
    ...partitionColumns.map((c, i) => `min(CAST(${ident(c.name)} AS VARCHAR)) AS p${i}`),
  ];
  parts.push(
    ...columns.flatMap((c, i) => {
      const e = ident(c.name);
      return [
        `count(${e}) AS v${i}`,
        `count(*) - count(${e}) AS n${i}`,
        `${statExpression(c.lakeType, e, "min")} AS lo${i}`,
        `${statExpression(c.lakeType, e, "max")} AS hi${i}`,
        isFloat(c.lakeType) ? `coalesce(bool_or(isnan(${e})), false) AS nan${i}` : `NULL AS nan${i}`,
      ];
    }),
  );
  const list = `[${paths.map(sqlString).join(", ")}]`;
  const rows = jsonRows(
    await conn.runAndReadAll(
      `SELECT ${parts.join(", ")} FROM read_parquet(${list}, hive_partitioning = false, filename = true) GROUP BY filename`,
    ),
  );
  const sizes = await columnSizes(conn, paths);
  const out = new Map<string, FileFacts>();
  for (const row of rows) {
    const f = String(row.f);
    const stats = columns.map((c, i) => ({
      columnId: c.columnId,
      columnSizeBytes: sizes.get(`${f}\u0000${c.name}`) ?? null,
      valueCount: Number(row[`v${i}`]),
      nullCount: Number(row[`n${i}`]),
      min: (row[`lo${i}`] as string | null) ?? null,
      max: (row[`hi${i}`] as string | null) ?? null,
      containsNan: isFloat(c.lakeType) ? Boolean(row[`nan${i}`]) : null,
    }));
    out.set(f, {
      stats,
      rows: Number(row.total),
      partitionValues: partitionColumns.length ? partitionColumns.map((_, i) => String(row[`p${i}`])) : null,
    });
  }
  return out;
}

/** A MAP value as DuckDB's JSON rows give it (`[{key, value}]`) → a record. */
function mapOf<V>(v: unknown): Map<string, V> {
  const out = new Map<string, V>();
  if (Array.isArray(v)) for (const e of v as Array<{ key: string; value: V }>) out.set(String(e.key), e.value);
  return out;
}

/**
 * A file's facts from one row of `COPY … (RETURN_STATS true)`, or undefined when the row
 * lacks a figure Sluice records (then the file is read back). Pure.
 */
export function factsFromCopyStats(
  row: Record<string, unknown>,
  columns: readonly TargetColumn[],
  partitionColumns: readonly TargetColumn[],
): (FileFacts & { size: number; footer: number }) | undefined {
  const byColumn = mapOf<unknown>(row.column_statistics);
  const stats: FileColumnStats[] = [];
  const rows = Number(row.count);
  for (const c of columns) {
    const st = mapOf<string>(byColumn.get(ident(c.name)));
    const values = Number(st.get("num_values"));
    const nulls = Number(st.get("null_count"));
    if (!st.has("num_values") || !st.has("null_count") || !st.has("column_size_bytes") || values !== rows)
      return undefined;
    const min = st.get("min") ?? null;
    const max = st.get("max") ?? null;
    const keep = hasMinMax(c.lakeType);
    // DuckDB leaves min/max out for an all-NaN float column too; anything else missing is read back.
    if (keep && values > nulls && (min === null || max === null) && !isFloat(c.lakeType)) return undefined;
    if (isFloat(c.lakeType) && !st.has("has_nan")) return undefined;
    stats.push({
      columnId: c.columnId,
      columnSizeBytes: Number(st.get("column_size_bytes")),
      valueCount: values - nulls,
      nullCount: nulls,
      min: keep ? min : null,
      max: keep ? max : null,
      containsNan: isFloat(c.lakeType) ? st.get("has_nan") === "true" : null,
    });
  }
  let partitionValues: string[] | null = null;
  if (partitionColumns.length) {
    const keys = mapOf<string>(row.partition_keys);
    partitionValues = [];
    for (const c of partitionColumns) {
      const v = keys.get(c.name);
      if (v === undefined || v === null) return undefined;
      partitionValues.push(String(v));
    }
  }
  return {
    stats,
    rows,
    partitionValues,
    size: Number(row.file_size_bytes),
    footer: Number(row.footer_size_bytes),
  };
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
  /**
   * The one partition the slice is meant to be (values by key index), when the write names
   * it: its file is then written by a plain COPY straight into its hive folder (no
   * `PARTITION_BY` pass), and the statistics the COPY returns prove every row holds it.
   */
  readonly partition?: readonly string[];
  /**
   * Told when a file's folder was made and when files are complete (by the COPY that wrote
   * them, before their statistics are read), so their flush to the disk can start early
   * (`file-staging.ts`); only given when nothing changes the files before the commit.
   */
  readonly flush?: {
    folderMade(dir: string): void;
    written(paths: readonly string[]): void;
  };
}

/** Partition values DuckDB's hive writer puts in a folder name unchanged (others it percent-encodes). */
const PLAIN_FOLDER_VALUE = /^[A-Za-z0-9_.-]+$/;

/** The hive folder of one partition (`a=1/b=x/`) when every value is plain, else undefined. Pure. */
export function partitionFolder(
  partitionColumns: readonly TargetColumn[],
  values: readonly string[] | undefined,
): string | undefined {
  if (!values || values.length !== partitionColumns.length || !partitionColumns.length) return undefined;
  if (!values.every((v) => PLAIN_FOLDER_VALUE.test(v))) return undefined;
  if (!partitionColumns.every((c) => PLAIN_FOLDER_VALUE.test(c.name))) return undefined;
  return partitionColumns.map((c, i) => `${c.name}=${values[i]}/`).join("");
}

/**
 * Facts of a file written for one named partition, with its partition values, when the
 * COPY's statistics prove every row holds them (no NULL, min = max = the value as text);
 * undefined otherwise (then the slice is written the general way, which finds what is wrong). Pure.
 */
export function singlePartitionFacts(
  row: Record<string, unknown>,
  columns: readonly TargetColumn[],
  partitionColumns: readonly TargetColumn[],
  values: readonly string[],
): (FileFacts & { size: number; footer: number }) | undefined {
  const f = factsFromCopyStats(row, columns, []);
  if (!f || f.stats.some((st) => !st.columnSizeBytes)) return undefined;
  const proven = partitionColumns.every((p, i) => {
    const st = f.stats[columns.findIndex((c) => c.columnId === p.columnId)];
    return st !== undefined && st.nullCount === 0 && st.min === values[i] && st.max === values[i];
  });
  return proven ? { ...f, partitionValues: [...values] } : undefined;
}

/** Write the slice as Parquet data files (none when it is empty). */
export async function writeDataFiles(conn: DuckDBConnection, req: DataFileRequest): Promise<WrittenDataFile[]> {
  const select = req.columns
    .map(
      (c) =>
        `${c.inSource ? `CAST(${ident(c.name)} AS ${duckdbTypeOf(c.lakeType)})` : `CAST(NULL AS ${duckdbTypeOf(c.lakeType)})`} AS ${ident(c.name)}`,
    )
    .join(", ");
  const fieldIds = req.columns.map((c) => `${sqlString(c.name)}: ${c.columnId}`).join(", ");
  const out: WrittenDataFile[] = [];
  const written = `SELECT ${select} FROM ${req.slice}`;
  /** The files of a COPY with RETURN_STATS: their facts as returned, or read back where incomplete. */
  const add = async (copied: readonly Record<string, unknown>[]): Promise<void> => {
    const readBack: string[] = [];
    const returned = copied.flatMap((row) => {
      const path = resolvePath(String(row.filename));
      const f = factsFromCopyStats(row, req.columns, req.partitionColumns);
      if (!f) readBack.push(path);
      return f ? [{ path, f }] : [];
    });
    // Column sizes: the returned ones equal the Parquet metadata's compressed sizes, except where
    // RETURN_STATS reports 0 (e.g. INTERVAL); only files with such a 0 have their metadata read.
    const unsized = returned.filter((r) => r.f.stats.some((st) => !st.columnSizeBytes)).map((r) => r.path);
    const sizes = unsized.length ? await columnSizes(conn, unsized) : new Map<string, number>();
    for (const { path, f } of returned) {
      out.push({
        path,
        relPath: relative(req.tableDir, path).split(sep).join("/"),
        recordCount: f.rows,
        fileSizeBytes: f.size,
        footerSize: f.footer,
        stats: f.stats.map((st, i) =>
          st.columnSizeBytes
            ? st
            : { ...st, columnSizeBytes: sizes.get(`${path}\u0000${req.columns[i]!.name}`) ?? null },
        ),
        partitionValues: f.partitionValues,
      });
    }
    if (readBack.length === 0) return;
    const facts = await readFileFacts(conn, readBack, req.columns, req.partitionColumns);
    for (const path of readBack) {
      const f = facts.get(path);
      if (!f)
        throw new LakeError(
          "LAKE_WRITE_INVALID",
          `DuckDB wrote ${path} but it cannot be read back; nothing was committed`,
        );
      const size = fileFacts(path);
      out.push({
        path,
        relPath: relative(req.tableDir, path).split(sep).join("/"),
        recordCount: f.rows,
        fileSizeBytes: size.size,
        footerSize: size.footer,
        stats: f.stats,
        partitionValues: f.partitionValues,
      });
    }
  };
  /**
   * COPY the slice to `target`; `file`, when it names the one file written, starts flushing
   * as soon as the COPY ends, before its statistics are read (if they then show the file is
   * not kept, it is removed, flushed or not).
   */
  const copy = async (target: string, options: string, file?: string): Promise<Record<string, unknown>[]> => {
    const result = await conn.runAndReadAll(
      `COPY (${written}) TO ${sqlString(target)} (FORMAT parquet, COMPRESSION snappy, ${options}RETURN_STATS true, FIELD_IDS {${fieldIds}})`,
    );
    if (file !== undefined) req.flush?.written([file]);
    return jsonRows(result);
  };
  /** A new folder `dir` for one file: made, and its parents' flush started. */
  const folderFor = (path: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    req.flush?.folderMade(dirname(path));
  };
  if (req.partitionColumns.length === 0) {
    const path = join(req.tableDir, `ducklake-${uuidv7()}.parquet`);
    folderFor(path);
    try {
      const copied = await copy(path, "", path);
      if (copied.every((r) => Number(r.count) === 0)) {
        rmSync(path, { force: true });
        return out;
      }
      await add(copied.map((r) => ({ ...r, filename: path })));
    } catch (err) {
      rmSync(path, { force: true });
      throw err;
    }
    return out;
  }
  const folder = partitionFolder(req.partitionColumns, req.partition);
  if (folder) {
    // The named partition: one plain COPY into its folder, proven by the returned statistics.
    const path = join(req.tableDir, folder, `ducklake-${uuidv7()}.parquet`);
    folderFor(path);
    let proven = false;
    try {
      const [row] = await copy(path, "", path);
      if (!row || Number(row.count) === 0) return out;
      const f = singlePartitionFacts(row, req.columns, req.partitionColumns, req.partition!);
      if (f) {
        proven = true;
        out.push({
          path,
          relPath: relative(req.tableDir, path).split(sep).join("/"),
          recordCount: f.rows,
          fileSizeBytes: f.size,
          footerSize: f.footer,
          stats: f.stats,
          partitionValues: f.partitionValues,
        });
      }
    } finally {
      if (!proven) rmSync(path, { force: true });
    }
    // Not proven (rows of other partitions, NULLs, a value whose statistics text differs, a
    // column size of 0): the general pass below writes it again and says what is wrong.
    if (proven) return out;
  }
  // One pass: DuckDB writes one hive folder per partition value (col=value/, values percent-encoded) under uniquely named files.
  mkdirSync(req.tableDir, { recursive: true });
  const keys = req.partitionColumns.map((c) => ident(c.name));
  const copied = await copy(
    req.tableDir,
    `PARTITION_BY (${keys.join(", ")}), WRITE_PARTITION_COLUMNS true, FILENAME_PATTERN 'ducklake-{uuid}', APPEND, `,
  );
  try {
    req.flush?.written(copied.map((r) => resolvePath(String(r.filename))));
    await add(copied);
    const at = req.partitionColumns.map((p) => req.columns.findIndex((c) => c.columnId === p.columnId));
    const nulls = out.reduce((n, f) => n + Math.max(...at.map((i) => f.stats[i]?.nullCount ?? 0)), 0);
    if (nulls > 0) {
      throw new LakeError(
        "LAKE_WRITE_INVALID",
        `a partition column (${req.partitionColumns.map((c) => c.name).join(", ")}) is NULL in ${nulls} row(s) of the slice; a partition value cannot be NULL, so filter or fill those rows in the SELECT`,
      );
    }
  } catch (err) {
    for (const r of copied) rmSync(resolvePath(String(r.filename)), { force: true });
    throw err;
  }
  return out;
}

/** Write a positional delete file for `dataPath` holding the positions `positionsSql` returns (a `pos` column). */
export async function writeDeleteFile(
  conn: DuckDBConnection,
  tableDir: string,
  dataPath: string,
  positionsSql: string,
): Promise<WrittenFile> {
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
