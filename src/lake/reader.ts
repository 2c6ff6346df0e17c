/**
 * Reading a DuckLake 1.0 lake: snapshots, tables and columns at any snapshot (schema
 * history through `begin_snapshot`/`end_snapshot`), the files visible at a snapshot, and
 * the table's rows through DuckDB (see `scan-plan.ts`). Time travel is a {@link SnapshotRef}.
 *
 * @example
 * const lake = await openLake(".sluice/lakes/main.sqlite");
 * const rows = await lake.query("main.orders", { kind: "version", snapshotId: 5 }, "SELECT count(*) AS n FROM {table}");
 * await lake.close();
 */
import { openSync, readSync, closeSync } from "node:fs";
import type { DuckDBConnection } from "@duckdb/node-api";
import { withDuckDb } from "../assets/duckdb.js";
import type { CatalogDb } from "./catalog-db.js";
import { openDuckdbCatalog } from "./catalog-duckdb.js";
import {
  readColumns,
  readDataFiles,
  readDeleteFiles,
  readLatestSnapshot,
  readMetadata,
  readSchemas,
  readSnapshots,
  readTables,
} from "./catalog-read.js";
import { openSqliteCatalog } from "./catalog-sqlite.js";
import { duckdbTypeOf } from "./column-types.js";
import { LakeError, LakeUnsupportedError, TableNotFoundError } from "./errors.js";
import { jsonRows } from "../assets/duckdb-json.js";
import { isRemotePath, resolveDataPath, resolveRelative } from "./paths.js";
import type { RemoteFiles } from "./remote-files.js";
import { type ScanColumn, scanSql } from "./scan-plan.js";
import type { LakeColumn, LakeSchema, LakeSnapshot, LakeTable, SnapshotRef, VisibleFile } from "./types.js";
import { columnsAt, filesAt, pickSnapshot, visibleAt } from "./visibility.js";

/** Options of {@link openLake}. */
export interface OpenLakeOptions {
  /** Use this data folder instead of the catalog's `data_path` (DuckLake's `OVERRIDE_DATA_PATH`). */
  readonly dataPath?: string;
  /** Access to the object store of an `s3://` data path (files are read from local copies). */
  readonly remote?: RemoteFiles;
}

/** A table as listed at a snapshot. */
export interface TableAt {
  readonly schema: LakeSchema;
  readonly table: LakeTable;
  /** `schema.table`. */
  readonly name: string;
}

/** `schema.table` of a name given as `table` (schema `main`) or `schema.table`. */
export function qualifiedName(name: string): string {
  return name.includes(".") ? name : `main.${name}`;
}

/** The latest snapshot. */
const LATEST: SnapshotRef = { kind: "latest" };

function catalogKind(path: string): "sqlite" | "duckdb" {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new LakeError(
      "LAKE_NOT_FOUND",
      `lake catalog ${path} cannot be opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check the path, or create the lake by materializing a table into it`,
      { cause: err },
    );
  }
  const head = Buffer.alloc(16);
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString("latin1", 0, 15) === "SQLite format 3") return "sqlite";
  if (head.toString("latin1", 8, 12) === "DUCK") return "duckdb";
  throw new LakeError(
    "LAKE_CATALOG_INVALID",
    `${path} is neither a SQLite nor a DuckDB database file, so it cannot be a DuckLake catalog`,
  );
}

/** Open a lake's catalog file (SQLite or DuckDB, detected from the file header). */
export async function openLake(catalogPath: string, options: OpenLakeOptions = {}): Promise<LakeReader> {
  const db =
    catalogKind(catalogPath) === "sqlite"
      ? openSqliteCatalog(catalogPath, { readonly: true })
      : await openDuckdbCatalog(catalogPath);
  try {
    return await LakeReader.open(db, options);
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** A read view of one lake. Holds the catalog connection until {@link LakeReader.close}. */
export class LakeReader {
  private constructor(
    readonly db: CatalogDb,
    /** Global `ducklake_metadata`. */
    readonly metadata: Readonly<Record<string, string>>,
    /** Absolute data folder. */
    readonly dataDir: string,
    /** The object store of an `s3://` data path. */
    readonly remote?: RemoteFiles,
  ) {}

  /** Wrap an open catalog connection (checks the format version). */
  static async open(db: CatalogDb, options: OpenLakeOptions = {}): Promise<LakeReader> {
    const meta = await readMetadata(db);
    const dataDir = options.dataPath ?? resolveDataPath(meta.data_path ?? "", db.baseDir);
    if (meta.encrypted === "true") throw new LakeUnsupportedError("an encrypted lake");
    return new LakeReader(db, meta, dataDir, options.remote);
  }

  /** Every snapshot, oldest first. */
  snapshots(): Promise<LakeSnapshot[]> {
    return readSnapshots(this.db);
  }

  /** The snapshot a reference names (the latest is read alone, not the whole history). @throws SnapshotNotFoundError */
  async snapshot(ref: SnapshotRef = LATEST): Promise<LakeSnapshot> {
    if (ref.kind === "latest") {
      const latest = await readLatestSnapshot(this.db);
      return pickSnapshot(latest ? [latest] : [], ref);
    }
    return pickSnapshot(await this.snapshots(), ref);
  }

  /** The tables that exist at a snapshot, by schema then name. */
  async tables(ref: SnapshotRef = LATEST): Promise<TableAt[]> {
    const s = (await this.snapshot(ref)).snapshotId;
    return this.tablesAt(s);
  }

  /** The tables that exist at snapshot `s`. */
  async tablesAt(s: number): Promise<TableAt[]> {
    const schemas = (await readSchemas(this.db)).filter((x) => visibleAt(x, s));
    const out: TableAt[] = [];
    for (const table of (await readTables(this.db)).filter((t) => visibleAt(t, s))) {
      const schema = schemas.find((x) => x.schemaId === table.schemaId);
      if (schema) out.push({ schema, table, name: `${schema.name}.${table.name}` });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** A table by `schema.table` (or `table` in `main`) at snapshot `s`. @throws TableNotFoundError */
  async tableAt(name: string, s: number): Promise<TableAt> {
    const found = await this.findTable(name, s);
    if (!found) throw new TableNotFoundError(qualifiedName(name), s);
    return found;
  }

  /** A table by name at snapshot `s`, or undefined. */
  async findTable(name: string, s: number): Promise<TableAt | undefined> {
    const full = qualifiedName(name);
    return (await this.tablesAt(s)).find((t) => t.name === full);
  }

  /** The visible schemas at snapshot `s`. */
  async schemasAt(s: number): Promise<LakeSchema[]> {
    return (await readSchemas(this.db)).filter((x) => visibleAt(x, s));
  }

  /** The top-level columns of a table at a snapshot, in order. */
  async columns(name: string, ref: SnapshotRef = LATEST): Promise<LakeColumn[]> {
    const s = (await this.snapshot(ref)).snapshotId;
    const t = await this.tableAt(name, s);
    return columnsAt(await readColumns(this.db, t.table.tableId), s);
  }

  /** The data files (with delete files) of a table at a snapshot, paths resolved. */
  async files(name: string, ref: SnapshotRef = LATEST): Promise<VisibleFile[]> {
    const s = (await this.snapshot(ref)).snapshotId;
    return this.filesOf(await this.tableAt(name, s), s);
  }

  /** The absolute folder (or URL) of a schema's files. */
  schemaDir(schema: LakeSchema): string {
    return resolveRelative(this.dataDir, schema.path, schema.pathIsRelative);
  }

  /** The absolute folder (or URL) of a table's files. */
  tableDir(t: TableAt): string {
    return resolveRelative(this.schemaDir(t.schema), t.table.path, t.table.pathIsRelative);
  }

  /** The visible files of a table at snapshot `s`. */
  async filesOf(t: TableAt, s: number): Promise<VisibleFile[]> {
    await this.refuseInlined(t);
    const tableDir = this.tableDir(t);
    const visible = filesAt(
      await readDataFiles(this.db, t.table.tableId, s),
      await readDeleteFiles(this.db, t.table.tableId, s),
      s,
    );
    return visible.map(({ data, delete: del }) => {
      if (data.encryptionKey !== null) throw new LakeUnsupportedError("an encrypted data file");
      if (data.mappingId !== null)
        throw new LakeUnsupportedError("a data file with a column name mapping (added with ducklake_add_data_files)");
      if (data.partialMax !== null && data.partialMax > s)
        throw new LakeUnsupportedError("time travel into a partial data file (merged across snapshots)");
      const base = { data, dataPath: resolveRelative(tableDir, data.path, data.pathIsRelative) };
      if (!del) return base;
      if (del.format !== "parquet") throw new LakeUnsupportedError(`a ${del.format} delete file`);
      return { ...base, delete: del, deletePath: resolveRelative(tableDir, del.path, del.pathIsRelative) };
    });
  }

  /**
   * A path DuckDB can read for a file of the lake: the path itself, or for an `s3://` file its
   * local copy (DuckDB has no S3 access here). @throws LakeError without object store access
   */
  async localPath(path: string): Promise<string> {
    if (!isRemotePath(path)) return path;
    if (!this.remote)
      throw new LakeError(
        "LAKE_FEATURE_UNSUPPORTED",
        `${path} is on an object store but the lake was opened without its S3 settings; open it with them (sluice.json assets.s3)`,
      );
    return this.remote.fetch(path);
  }

  /** Rows inlined in the catalog (`ducklake_inlined_data_tables`) are not read yet: refuse rather than miss them. */
  private async refuseInlined(t: TableAt): Promise<void> {
    const inlined = await this.db.all("SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id = ?", [
      t.table.tableId,
    ]);
    for (const r of inlined) {
      const name = String(r.table_name).replace(/"/g, '""');
      const [count] = await this.db.all(`SELECT count(*) AS n FROM "${name}"`).catch(() => [{ n: 0 }]);
      if (Number(count?.n ?? 0) > 0)
        throw new LakeUnsupportedError(`table ${t.name} has rows inlined in the catalog (data inlining)`);
    }
  }

  /** The DuckDB SELECT returning a table's rows at a snapshot, and the snapshot it reads. */
  async scan(
    name: string,
    ref: SnapshotRef = LATEST,
  ): Promise<{ sql: string; snapshot: LakeSnapshot; columns: LakeColumn[] }> {
    const snapshot = await this.snapshot(ref);
    const s = snapshot.snapshotId;
    const t = await this.tableAt(name, s);
    const columns = columnsAt(await readColumns(this.db, t.table.tableId), s);
    const scanColumns: ScanColumn[] = columns.map((c) => ({
      columnId: c.columnId,
      name: c.name,
      type: duckdbTypeOf(c.type),
      initialDefault: c.initialDefault,
    }));
    const files = await Promise.all(
      (await this.filesOf(t, s)).map(async (f) => ({
        dataPath: await this.localPath(f.dataPath),
        ...(f.deletePath && {
          deletePath: await this.localPath(f.deletePath),
          deletePartial: f.delete!.partialMax !== null,
        }),
      })),
    );
    return { sql: scanSql(scanColumns, files, s), snapshot, columns };
  }

  /**
   * Run `sql` over a table at a snapshot in a fresh DuckDB instance; `{table}` in `sql`
   * names the table's rows. Rows come back as JSON values (`assets/duckdb-json.ts`).
   */
  async query(name: string, ref: SnapshotRef, sql: string): Promise<Record<string, unknown>[]> {
    const { sql: scan } = await this.scan(name, ref);
    return withDuckDb([], async (conn) => queryOver(conn, scan, sql));
  }

  /** Close the catalog connection. */
  close(): Promise<void> {
    return this.db.close();
  }
}

/** Run `sql` with `{table}` bound to the rows of `scan` (a temporary view) on `conn`. */
async function queryOver(conn: DuckDBConnection, scan: string, sql: string): Promise<Record<string, unknown>[]> {
  const view = `__sluice_lake_${Math.random().toString(36).slice(2, 10)}`;
  await conn.run(`CREATE OR REPLACE TEMP VIEW ${view} AS ${scan}`);
  try {
    return jsonRows(await conn.runAndReadAll(sql.split("{table}").join(view)));
  } finally {
    await conn.run(`DROP VIEW IF EXISTS ${view}`);
  }
}
