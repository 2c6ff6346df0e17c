/**
 * Resources, data tables, lakes and volumes with windmill-client's names (`getResource`,
 * `setResource`, `datatable`, `ducklake`) plus Sluice's volume helpers. Inside a pipeline
 * run, resource writes, data table writes, lake writes and volume writes are recorded as
 * the run's assets (`$res:<path>`, `datatable://<name>/<table>`, `ducklake://<name>/<table>`,
 * `volume://<name>/<path>`).
 */
import { InvalidInputError, SluiceError } from "../errors.js";
import { requireAssetHost } from "./asset-host.js";

/**
 * A resource's value (JSON stored by Sluice).
 * @throws RESOURCE_NOT_FOUND unless `undefinedIfEmpty`
 * @example const cfg = await wmill.getResource("f/team/config");
 */
export async function getResource(path: string, undefinedIfEmpty = false): Promise<any> {
  if (typeof path !== "string")
    throw new InvalidInputError('getResource needs a resource path such as "f/team/config"', {
      code: "INVALID_RESOURCE_PATH",
    });
  return requireAssetHost("getResource").getResource(path, undefinedIfEmpty);
}

/**
 * Creates or replaces a resource (windmill-client's argument order: value first).
 * @example await wmill.setResource({ url: "https://…" }, "f/team/config");
 */
export async function setResource(value: unknown, path?: string, initializeToTypeIfNotExist?: string): Promise<void> {
  if (typeof path !== "string")
    throw new InvalidInputError('setResource needs a path: setResource(value, "f/team/config")', {
      code: "INVALID_RESOURCE_PATH",
    });
  await requireAssetHost("setResource").setResource(path, value, initializeToTypeIfNotExist ?? "any");
}

/** A query on a data table: `await` it, or call `fetch()` / `fetchOne()`. */
export interface SqlQuery<R> extends PromiseLike<R[]> {
  /** Every row. */
  fetch(): Promise<R[]>;
  /** The first row, or undefined. */
  fetchOne(): Promise<R | undefined>;
}

/**
 * A data table client: a tagged template whose interpolations become bound parameters
 * (never spliced into the SQL), plus `query(sql, ...params)` with `$1`, `$2`, ….
 */
export interface SqlTemplateFunction {
  <R = Record<string, any>>(strings: TemplateStringsArray, ...values: unknown[]): SqlQuery<R>;
  query<R = Record<string, any>>(sql: string, ...params: unknown[]): SqlQuery<R>;
}

function makeQuery<R>(run: () => Promise<R[]>): SqlQuery<R> {
  let promise: Promise<R[]> | undefined;
  const fetch = () => (promise ??= run());
  return {
    fetch,
    fetchOne: async () => (await fetch())[0],
    then: (ok, ko) => fetch().then(ok, ko),
  };
}

/**
 * A client for data table `name` (default `main`): tables in a DuckDB database Sluice
 * manages (`.sluice/datatables/<name>.duckdb`, or the file named in sluice.json).
 * @example
 * const sql = wmill.datatable();
 * await sql`INSERT INTO friend VALUES (${name}, ${age})`;
 * const friend = await sql`SELECT * FROM friend WHERE name = ${name}`.fetchOne();
 */
export function datatable(name = "main"): SqlTemplateFunction {
  if (typeof name !== "string" || name.includes(":")) {
    throw new InvalidInputError(
      `datatable(${JSON.stringify(name)}): pass a data table name such as "main" (schemas with "name:schema" are not supported; qualify tables as schema.table)`,
      { code: "INVALID_DATATABLE" },
    );
  }
  const run = <R>(sql: string, params: readonly unknown[]) =>
    makeQuery<R>(async () => (await requireAssetHost("datatable").queryDatatable(name, sql, params)) as R[]);
  const tag = (<R>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const sql = strings.reduce((acc, part, i) => (i === 0 ? part : `${acc}$${i}${part}`), "");
    return run<R>(sql, values);
  }) as SqlTemplateFunction;
  tag.query = <R>(sql: string, ...params: unknown[]) => run<R>(sql, params);
  return tag;
}

/** SQL on a lake from code (the `ducklake()` tag form) is not supported; the helpers and DuckDB scripts are. */
export class DucklakeUnavailableError extends SluiceError {
  constructor(name: string) {
    super(
      "DUCKLAKE_NOT_AVAILABLE",
      `ducklake(${JSON.stringify(name)}) cannot run SQL from code yet; use its read / upsertPartition / appendPartition helpers, or a DuckDB script with ATTACH 'ducklake://${name}' AS dl`,
    );
  }
}

/** Result of a managed write from code: the same summary a `// materialize` run returns. */
export interface DucklakeWriteResult {
  readonly asset: string;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly partition?: string;
}

/** Options of a managed write from code. `partition` defaults to the calling run's partition. */
export interface DucklakeWriteOptions {
  /** Merge on this column (upsert); without it the slice is replaced. */
  readonly key?: string;
  readonly partition?: string;
}

/** Options of a read: one partition, and a snapshot by `version` or `timestamp` (default: latest). */
export interface DucklakeReadOptions {
  readonly partition?: string;
  readonly version?: number;
  readonly timestamp?: string;
}

/** The seed's DuckLake helpers (camelCase, plus the Python names). */
export interface DucklakeClient {
  (strings: TemplateStringsArray, ...values: unknown[]): never;
  /** Rows of a table. */
  read(table: string, options?: DucklakeReadOptions): Promise<Record<string, any>[]>;
  /** Replace the slice (the partition, else the whole table) with `rows`, or merge them on `key`; one snapshot. */
  upsertPartition(
    table: string,
    rows: readonly Record<string, unknown>[],
    options?: DucklakeWriteOptions,
  ): Promise<DucklakeWriteResult>;
  /** Append `rows` to the slice; one snapshot. Re-running appends again. */
  appendPartition(
    table: string,
    rows: readonly Record<string, unknown>[],
    options?: { partition?: string },
  ): Promise<DucklakeWriteResult>;
  upsert_partition: DucklakeClient["upsertPartition"];
  append_partition: DucklakeClient["appendPartition"];
}

/**
 * windmill-client's DuckLake client for lake `name` (`ducklake://<name>`): managed,
 * snapshotted writes of rows from code and reads at any snapshot. Inside a pipeline run the
 * write is recorded as `ducklake://<name>/<table>` and the run's partition is the default slice.
 * @example
 * const lake = wmill.ducklake();
 * await lake.upsertPartition("orders_daily", rows, { key: "order_id" });
 * const old = await lake.read("orders_daily", { version: 3 });
 */
export function ducklake(name = "main"): DucklakeClient {
  const client = ((): never => {
    throw new DucklakeUnavailableError(name);
  }) as unknown as DucklakeClient;
  const host = (what: string) => requireAssetHost(`ducklake(${JSON.stringify(name)}).${what}`);
  client.read = (table, options = {}) => host("read").lakeRead(name, table, options);
  client.upsertPartition = async (table, rows, options = {}) => {
    const h = host("upsertPartition");
    const partition = options.partition ?? h.partition();
    return h.lakeWrite(name, table, rows, {
      mode: options.key ? "merge" : "replace",
      ...(options.key && { key: options.key }),
      ...(partition !== undefined && { partition }),
    });
  };
  client.appendPartition = async (table, rows, options = {}) => {
    const h = host("appendPartition");
    const partition = options.partition ?? h.partition();
    return h.lakeWrite(name, table, rows, { mode: "append", ...(partition !== undefined && { partition }) });
  };
  client.upsert_partition = client.upsertPartition;
  client.append_partition = client.appendPartition;
  return client;
}

/**
 * Writes a file of a volume (a named directory); inside a pipeline run the write is
 * recorded as `volume://<volume>/<path>`.
 * @example await wmill.writeVolumeFile("models", "latest/model.bin", bytes);
 */
export async function writeVolumeFile(volume: string, path: string, content: string | Uint8Array): Promise<void> {
  const data = typeof content === "string" ? new TextEncoder().encode(content) : content;
  await requireAssetHost("writeVolumeFile").writeVolumeFile(volume, path, data);
}

/** Reads a file of a volume; `undefined` when it does not exist. */
export async function loadVolumeFile(volume: string, path: string): Promise<Uint8Array | undefined> {
  return requireAssetHost("loadVolumeFile").readVolumeFile(volume, path);
}

/** The local directory of a volume (writes made directly there are not recorded: declare them with `// asset write volume://…`). */
export async function volumePath(volume: string): Promise<string> {
  return requireAssetHost("volumePath").volumeDir(volume);
}

/** The partition of the calling pipeline run (the `partition` argument), if it has one. */
export function getPartition(): string | undefined {
  return requireAssetHost("getPartition").partition();
}
