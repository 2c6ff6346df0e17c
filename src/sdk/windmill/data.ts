/**
 * Resources, data tables and volumes with windmill-client's names (`getResource`,
 * `setResource`, `datatable`, `ducklake`) plus Sluice's volume helpers. Inside a pipeline
 * run, resource writes, data table writes and volume writes are recorded as the run's
 * assets (`$res:<path>`, `datatable://<name>/<table>`, `volume://<name>/<path>`).
 */
import { InvalidInputError, SluiceError } from "../errors.js";
import { requireAssetHost } from "./asset-host.js";

/**
 * A resource's value (JSON stored by Sluice).
 * @throws RESOURCE_NOT_FOUND unless `undefinedIfEmpty`
 * @example const cfg = await wmill.getResource("f/team/config");
 */
export async function getResource(path: string, undefinedIfEmpty = false): Promise<any> {
  if (typeof path !== "string") throw new InvalidInputError("getResource needs a resource path such as \"f/team/config\"", { code: "INVALID_RESOURCE_PATH" });
  return requireAssetHost("getResource").getResource(path, undefinedIfEmpty);
}

/**
 * Creates or replaces a resource (windmill-client's argument order: value first).
 * @example await wmill.setResource({ url: "https://…" }, "f/team/config");
 */
export async function setResource(value: unknown, path?: string, initializeToTypeIfNotExist?: string): Promise<void> {
  if (typeof path !== "string") throw new InvalidInputError("setResource needs a path: setResource(value, \"f/team/config\")", { code: "INVALID_RESOURCE_PATH" });
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
    throw new InvalidInputError(`datatable(${JSON.stringify(name)}): pass a data table name such as "main" (schemas with "name:schema" are not supported; qualify tables as schema.table)`, { code: "INVALID_DATATABLE" });
  }
  const run = <R>(sql: string, params: readonly unknown[]) => makeQuery<R>(async () => (await requireAssetHost("datatable").queryDatatable(name, sql, params)) as R[]);
  const tag = (<R>(strings: TemplateStringsArray, ...values: unknown[]) => {
    const sql = strings.reduce((acc, part, i) => (i === 0 ? part : `${acc}$${i}${part}`), "");
    return run<R>(sql, values);
  }) as SqlTemplateFunction;
  tag.query = <R>(sql: string, ...params: unknown[]) => run<R>(sql, params);
  return tag;
}

/** DuckLake tables are parsed and tracked, not executed, in this version. */
export class DucklakeUnavailableError extends SluiceError {
  constructor(name: string) {
    super(
      "DUCKLAKE_NOT_AVAILABLE",
      `ducklake(${JSON.stringify(name)}): DuckLake tables are tracked in the pipeline graph but Sluice cannot read or write them yet; use datatable() for tables Sluice manages`,
    );
  }
}

/** windmill-client's DuckLake client: not available yet (see {@link DucklakeUnavailableError}). */
export function ducklake(name = "main"): SqlTemplateFunction {
  const fail = (): never => {
    throw new DucklakeUnavailableError(name);
  };
  const tag = fail as unknown as SqlTemplateFunction;
  tag.query = fail;
  return tag;
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
