/**
 * Managed writes into a lake table, write-audit-publish: the slice (a SELECT) is written
 * to new Parquet files first, an optional audit (data tests) reads them, and only then is
 * one catalog transaction committed as a new snapshot. A failed audit or commit removes the
 * new files and commits nothing; a crash leaves files no snapshot references, which
 * {@link sweepOrphans} removes later. A commit that conflicts with a concurrent one is
 * planned and written again (up to {@link MAX_ATTEMPTS} times).
 *
 * Strategies over a unit (the seed's table): `replace`, `merge` on `key`, `append`, over a
 * partition (`partition: {col: value}`, identity DuckLake partitioning) or the whole table.
 * The table is created on the first write, partitioned by the partition's columns.
 *
 * @example
 * const lake = await openLakeForWrite(".sluice/lakes/main.sqlite", { dataPath: ".sluice/lakes/main/" });
 * await withDuckDb([], (conn) => lake.write(conn, { table: "orders", source: "SELECT 1 AS id", mode: "append" }));
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import type { PoolConfig } from "pg";
import { sqlString } from "../assets/duckdb.js";
import type { CatalogDb } from "./catalog-db.js";
import { commitWrite, type CommitPlan } from "./catalog-commit.js";
import { readMaxColumnId } from "./catalog-read.js";
import { duckdbTypeOf } from "./column-types.js";
import { LakeError, LakeUnsupportedError } from "./errors.js";
import type { LakeSnapshot } from "./types.js";
import { type WrittenDataFile, type WrittenFile, writeDataFiles, writeDeleteFile } from "./file-writer.js";
import { jsonRows } from "../assets/duckdb-json.js";
import { openPostgresCatalog, POSTGRES_CATALOG_DDL } from "./catalog-postgres.js";
import { createLake, initLake } from "./lake-create.js";
import { stageFiles } from "./file-staging.js";
import { joinPath } from "./paths.js";
import type { RemoteFiles } from "./remote-files.js";
import { LakeReader, type OpenLakeOptions, qualifiedName } from "./reader.js";
import { ident } from "./scan-plan.js";
import { sourceColumns } from "./source-columns.js";
import {
  afterFileCommit,
  type PlannedFile,
  readTableWriteState,
  type TableWriteState,
  WriteStateCache,
} from "./write-state.js";
import {
  type ColumnPlan,
  planKeepColumns,
  planNewTable,
  planReplaceColumns,
  type SourceColumn,
  type TargetColumn,
} from "./write-plan.js";

/** How a slice is reconciled with the table. */
export type WriteMode = "replace" | "merge" | "append";

/** What the audit (data tests) gets: the slice exactly as written, before it is published. */
interface AuditContext {
  readonly conn: DuckDBConnection;
  /** A relation (temporary table) holding the slice's rows. */
  readonly relation: string;
  /** The new data files. */
  readonly files: readonly string[];
}

/** One managed write. */
export interface WriteRequest {
  /** `table` (schema `main`) or `schema.table`. */
  readonly table: string;
  /** A query run on the given connection; its rows are the slice. */
  readonly source: string;
  readonly mode: WriteMode;
  /** Merge key column (mode `merge`). */
  readonly key?: string;
  /** The partition the slice is (identity partition columns → value); absent: the whole table. */
  readonly partition?: Readonly<Record<string, string>>;
  /** Identity partition columns of a table this write creates (default: the columns of `partition`). */
  readonly partitionBy?: readonly string[];
  /** Runs after the files are written, before the commit; throwing commits nothing. */
  readonly audit?: (ctx: AuditContext) => Promise<void>;
  readonly author?: string;
  readonly commitMessage?: string;
}

/** What a write produced. */
export interface WriteResult {
  /** The snapshot the table now is at (the new one, or the current one when nothing changed). */
  readonly snapshotId: number;
  /** Rows in the slice. */
  readonly rows: number;
  readonly tableId: number;
  /** The table was created by this write. */
  readonly created: boolean;
  /** No snapshot was needed (an empty slice over nothing). */
  readonly unchanged: boolean;
}

/** Attempts of a write whose commit conflicts with concurrent ones. */
const MAX_ATTEMPTS = 8;
const SLICE = "__sluice_lake_slice";

/** Open (creating if needed) a lake with a SQLite catalog for reading and writing. */
export async function openLakeForWrite(
  catalogPath: string,
  options: OpenLakeOptions & { dataPath: string },
): Promise<LakeWriter> {
  const db = await createLake(catalogPath, { dataPath: options.dataPath });
  try {
    return new LakeWriter(db, await LakeReader.open(db, { ...(options.remote && { remote: options.remote }) }));
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** Open (creating if needed) a lake whose catalog lives in schema `schema` of a Postgres database. */
export async function openPostgresLake(
  url: string | PoolConfig,
  schema: string,
  options: { dataPath: string; remote?: RemoteFiles },
): Promise<LakeWriter> {
  const db = await openPostgresCatalog(url, schema);
  try {
    await initLake(db, POSTGRES_CATALOG_DDL, { dataPath: options.dataPath });
    return new LakeWriter(db, await LakeReader.open(db, { ...(options.remote && { remote: options.remote }) }));
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** Writes into one lake. */
export class LakeWriter {
  /** What the next write plans on, kept from the last one (see `write-state.ts`). */
  private readonly states = new WriteStateCache();

  constructor(
    readonly db: CatalogDb,
    /** Reads the same catalog. */
    readonly reader: LakeReader,
  ) {}

  /**
   * Write a slice (see {@link WriteRequest}). A replace or append without an audit writes the
   * SELECT straight into its Parquet files in one pass (its rows, partition values and
   * statistics come back from the COPY); a merge or an audited write first holds the slice in
   * a temporary table, which the merge's key lookups and the audit read. (A direct write planned
   * again after a commit conflict runs its SELECT again.)
   * @throws LakeError, or the audit's own error
   */
  async write(conn: DuckDBConnection, req: WriteRequest): Promise<WriteResult> {
    const direct = req.mode !== "merge" && !req.audit;
    if (!direct) await conn.run(`CREATE OR REPLACE TEMP TABLE ${SLICE} AS ${req.source}`);
    try {
      const columns = sourceColumns(conn, direct ? req.source : `SELECT * FROM ${SLICE}`);
      // the first attempt's snapshot is read from the catalog while DuckDB binds the SELECT
      const latest = this.reader.snapshot();
      latest.catch(() => undefined);
      const source = await columns;
      const rows = direct ? checkPartitionColumns(req, source) : await checkSlice(conn, req, source);
      const slice = direct ? `(${req.source})` : SLICE;
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.attempt(conn, req, source, rows, slice, attempt === 1 ? latest : this.reader.snapshot());
        } catch (err) {
          if (!(err instanceof LakeError && err.code === "LAKE_COMMIT_CONFLICT") || attempt >= MAX_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
        }
      }
    } finally {
      if (!direct) await conn.run(`DROP TABLE IF EXISTS ${SLICE}`);
    }
  }

  private async attempt(
    conn: DuckDBConnection,
    req: WriteRequest,
    source: SourceColumn[],
    /** The slice's rows, or undefined when the files written will tell (a direct write). */
    counted: number | undefined,
    /** The relation the slice is read from: the temporary table, or the SELECT itself. */
    slice: string,
    /** The latest snapshot, which the attempt plans on. */
    latest: Promise<LakeSnapshot>,
  ): Promise<WriteResult> {
    const base = (await latest).snapshotId;
    const name = qualifiedName(req.table);
    const [schemaName, tableName] = [name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)];
    const schemas = await this.states.schemasAt(base, () => this.reader.schemasAt(base));
    const schema = schemas.find((x) => x.name === schemaName);
    if (!schema)
      throw new LakeError(
        "LAKE_WRITE_INVALID",
        `schema ${schemaName} does not exist in this lake; write to main.<table>`,
      );
    const state = await this.tableState(name, base);
    const table = state?.table;
    const partitionNames = Object.keys(req.partition ?? {});
    let plan: ColumnPlan;
    let partitionColumns: TargetColumn[] = [];
    let partitionId: number | null = null;
    let visible: readonly PlannedFile[] = [];
    let tableDir: string;
    if (!table) {
      plan = planNewTable(source);
      if (req.partition && req.partitionBy && req.partitionBy.join(",") !== partitionNames.join(",")) {
        throw new LakeError(
          "LAKE_WRITE_INVALID",
          `partitionBy (${req.partitionBy.join(", ")}) and the partition written (${partitionNames.join(", ")}) name different columns; give the same columns`,
        );
      }
      partitionColumns = (req.partition ? partitionNames : (req.partitionBy ?? [])).map((n) => {
        const c = plan.columns.find((x) => x.name === n);
        if (!c)
          throw new LakeError("LAKE_WRITE_INVALID", `partition column ${n} is not a column of the SELECT; add it`);
        return c;
      });
      tableDir = joinPath(this.reader.schemaDir(schema), `${tableName}/`);
    } else {
      const current = state!.columns;
      const parts = state!.partitioning;
      const partNames = (parts?.columns ?? []).map((p) => {
        if (p.transform !== "identity")
          throw new LakeUnsupportedError(`writing to a table partitioned with the ${p.transform} transform`);
        return current.find((c) => c.columnId === p.columnId)?.name ?? "";
      });
      if (req.partition && partNames.join(",") !== partitionNames.join(",")) {
        throw new LakeError(
          "LAKE_WRITE_INVALID",
          `table ${name} is ${partNames.length ? `partitioned by ${partNames.join(", ")}` : "not partitioned"}, but the write names partition ${partitionNames.join(", ")}; write the whole table, or use the table's partition columns`,
        );
      }
      plan =
        req.mode === "replace" && !req.partition
          ? planReplaceColumns(current, source, await readMaxColumnId(this.db, table.table.tableId))
          : planKeepColumns(current, source, name);
      partitionColumns = partNames.map((n) => {
        const c = plan.columns.find((x) => x.name === n);
        if (!c)
          throw new LakeError(
            "LAKE_WRITE_INVALID",
            `the SELECT drops ${n}, the partition column of ${name}; keep it in the SELECT`,
          );
        return c;
      });
      partitionId = parts?.partitionId ?? null;
      tableDir = state!.tableDir;
      visible = state!.files;
      if (req.partition) {
        const want = partNames.map((n) => req.partition![n]);
        visible = visible.filter((f) => want.every((w, i) => f.partitionValues[i] === w));
      }
    }
    if (req.mode === "merge") {
      if (!req.key) throw new LakeError("LAKE_WRITE_INVALID", "a merge needs key=<column>");
      if (!plan.columns.some((c) => c.name === req.key && c.inSource))
        throw new LakeError(
          "LAKE_WRITE_INVALID",
          `merge key ${req.key} is not a column of the SELECT; add it, or fix key=`,
        );
    }
    const written: WrittenFile[] = [];
    let durable: Promise<void> | undefined;
    const staging = stageFiles(tableDir, this.reader.remote);
    try {
      const newDeletes: Array<{ dataFileId: number; replaces: number | null; file: WrittenFile }> = [];
      if (req.mode === "merge" && table) {
        const key = plan.columns.find((c) => c.name === req.key)!;
        const keyType = duckdbTypeOf(key.lakeType);
        for (const f of visible) {
          const old = f.deletePath
            ? `SELECT pos FROM read_parquet(${sqlString(await staging.local(f.deletePath))})`
            : "SELECT CAST(NULL AS BIGINT) AS pos WHERE false";
          const hits =
            `SELECT file_row_number AS pos FROM read_parquet(${sqlString(await staging.local(f.dataPath))}, schema = MAP {${key.columnId}: {name: 'k', type: ${sqlString(keyType)}, default_value: CAST(NULL AS VARCHAR)}}, file_row_number = true, hive_partitioning = false) ` +
            `WHERE k IN (SELECT CAST(${ident(key.name)} AS ${keyType}) FROM ${SLICE}) AND file_row_number NOT IN (${old})`;
          const [n] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM (${hits})`));
          if (Number(n!.n) === 0) continue;
          const file = await writeDeleteFile(conn, staging.dir, f.dataPath, `${old} UNION ALL ${hits}`);
          written.push(file);
          newDeletes.push({ dataFileId: f.dataFileId, replaces: f.deleteFileId, file });
        }
      }
      const newFiles = await writeDataFiles(conn, {
        slice,
        columns: plan.columns,
        tableDir: staging.dir,
        partitionColumns,
        ...(req.partition && { partition: partitionNames.map((n) => req.partition![n]!) }),
        // the files flush as soon as they are written, unless an audit runs on them first
        ...(!req.audit && { flush: staging }),
      });
      written.push(...newFiles);
      if (counted === undefined && req.partition) checkWrittenPartition(req.partition, partitionNames, newFiles);
      const rows = counted ?? newFiles.reduce((n, f) => n + f.recordCount, 0);
      const endFiles = req.mode === "replace" ? visible.map((f) => f.dataFileId) : [];
      // The audit runs on every slice, also one that changes nothing (an empty merge or append):
      // a test such as "the day has rows" must be able to fail it.
      if (req.audit) {
        await conn.run(`CREATE OR REPLACE TEMP VIEW __sluice_lake_audit AS SELECT * FROM ${SLICE}`);
        await req.audit({ conn, relation: "__sluice_lake_audit", files: newFiles.map((f) => f.path) });
      }
      if (
        table &&
        !newFiles.length &&
        !endFiles.length &&
        !newDeletes.length &&
        !plan.added.length &&
        !plan.ended.length
      ) {
        return { snapshotId: base, rows, tableId: table.table.tableId, created: false, unchanged: true };
      }
      // local files are flushed while the catalog transaction writes its rows (it commits after them;
      // the data files' flushes began when their COPY ended, see `flush` above); uploads end
      // before the transaction begins, so its write lock is not held while they run
      durable = staging.publish(written);
      // handled here so a failed flush is never an unhandled rejection while the transaction runs; commitWrite throws it
      durable.catch(() => undefined);
      if (!staging.quick) await durable;
      const commit: CommitPlan = {
        baseSnapshot: base,
        schemaId: schema.schemaId,
        schemaName,
        tableName,
        ...(table && { tableId: table.table.tableId }),
        ...(!table && { createPartitionColumns: partitionColumns.map((c) => c.columnId) }),
        partitionId,
        columns: plan,
        newFiles,
        endFiles,
        newDeletes,
        ...(req.mode !== "append" && {
          sliceGuard: { partitionValues: req.partition ? partitionNames.map((n) => req.partition![n]!) : null },
        }),
        ...(req.author && { author: req.author }),
        ...(req.commitMessage && { commitMessage: req.commitMessage }),
      };
      const result = await commitWrite(this.db, commit, { durable });
      if (result.onBase && state && !newDeletes.length && !plan.added.length && !plan.ended.length) {
        const added = newFiles.map((file, i) => ({ dataFileId: result.dataFileIds[i]!, file }));
        this.states.advance(base, name, afterFileCommit(state, result.snapshotId, endFiles, added));
      } else this.states.clear();
      return { snapshotId: result.snapshotId, rows, tableId: result.tableId, created: !table, unchanged: false };
    } catch (err) {
      // a commit that failed before waiting for the flush: let it end before the files go
      await durable?.catch(() => undefined);
      await staging.discard(written);
      throw err;
    } finally {
      staging.close();
    }
  }

  /** Table `name` at snapshot `s` as a write plans on it (kept between writes), or undefined when it does not exist. */
  private async tableState(name: string, s: number): Promise<TableWriteState | undefined> {
    const kept = this.states.table(name, s);
    if (kept) return kept;
    const table = await this.reader.findTable(name, s);
    if (!table) return undefined;
    const state = await readTableWriteState(this.reader, this.db, table, s);
    this.states.keep(name, state);
    return state;
  }

  /** Close the catalog. */
  close(): Promise<void> {
    return this.db.close();
  }
}

/** The SELECT has every column of the partition written. @returns undefined: the rows are counted from the files */
function checkPartitionColumns(req: WriteRequest, source: SourceColumn[]): undefined {
  for (const col of Object.keys(req.partition ?? {})) {
    if (!source.some((c) => c.name === col))
      throw new LakeError(
        "LAKE_WRITE_INVALID",
        `the SELECT has no column ${col}, the partition column; add it to the SELECT`,
      );
  }
  return undefined;
}

function outsidePartition(col: string, value: string, bad: number): LakeError {
  return new LakeError(
    "LAKE_WRITE_INVALID",
    `${bad} row(s) of the slice have ${col} other than ${value}, the partition being written; filter the SELECT to that partition`,
  );
}

/** A direct write's files all hold the partition written (the table is partitioned by its columns, so each file holds one value). */
function checkWrittenPartition(
  partition: Readonly<Record<string, string>>,
  names: readonly string[],
  files: readonly WrittenDataFile[],
): void {
  names.forEach((col, i) => {
    const bad = files.filter((f) => f.partitionValues?.[i] !== partition[col]).reduce((n, f) => n + f.recordCount, 0);
    if (bad > 0) throw outsidePartition(col, partition[col]!, bad);
  });
}

/** Check the slice (a temporary table) against its partition, and a merge's key for NULLs; @returns its row count. */
async function checkSlice(conn: DuckDBConnection, req: WriteRequest, source: SourceColumn[]): Promise<number> {
  const entries = Object.entries(req.partition ?? {});
  checkPartitionColumns(req, source);
  const outside = entries.map(
    ([col, value], i) =>
      `count(*) FILTER (WHERE CAST(${ident(col)} AS VARCHAR) IS DISTINCT FROM ${sqlString(value)}) AS bad${i}`,
  );
  // a merge key column the SELECT lacks is reported by the plan, which names the key
  const key = req.mode === "merge" && req.key && source.some((c) => c.name === req.key) ? req.key : undefined;
  const counts = [
    "count(*) AS n",
    ...outside,
    ...(key ? [`count(*) FILTER (WHERE ${ident(key)} IS NULL) AS null_keys`] : []),
  ];
  const [row] = jsonRows(await conn.runAndReadAll(`SELECT ${counts.join(", ")} FROM ${SLICE}`));
  entries.forEach(([col, value], i) => {
    const bad = Number(row![`bad${i}`]);
    if (bad > 0) throw outsidePartition(col, value, bad);
  });
  const nullKeys = key ? Number(row!.null_keys) : 0;
  if (nullKeys > 0)
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `the merge key ${key} is NULL in ${nullKeys} row(s) of the slice; a NULL key matches no row, so each run would add those rows again: filter them out or give them a key in the SELECT`,
    );
  return Number(row!.n);
}
