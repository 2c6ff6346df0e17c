/**
 * Data tables (`datatable://<name>[/<table>]`): SQL tables Sluice manages, one DuckDB
 * database file per name (default `<project>/.sluice/datatables/<name>.duckdb`, or a file
 * named in `sluice.json`). Queries are parameterised (`$1`, `$2`, … bound, never spliced
 * into the text).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { type AssetConfig, datatableFile } from "./config.js";
import { runStatements, sqlString, withDuckDb } from "./duckdb.js";
import { AssetError } from "./errors.js";

/**
 * What a caller may set up on a data-table query's session before it runs (the pipeline
 * layer attaches `ducklake://` lakes this way; the assets layer knows nothing of lakes).
 * Called before the data table becomes the default database, so what it creates lives in
 * the session's in-memory catalog, never in the data table's file.
 */
export type QuerySetup = (
  conn: DuckDBConnection,
  /** The query's parameter values by name (`1` for `$1`), as it is run with them. */
  valueOf: (name: string) => unknown,
) => Promise<{
  /** The query to run instead (e.g. with time travel rewritten). */
  readonly sql: string;
  /** In-memory schemas the query names (`dl` for `dl.orders`), put on the search path after the data table. */
  readonly schemas: readonly string[];
  close(): Promise<void>;
}>;

/** Runs SQL against data tables. */
export class Datatables {
  constructor(private readonly config: AssetConfig) {}

  /** The DuckDB file of a data table. */
  file(name: string): string {
    return datatableFile(this.config, name);
  }

  /**
   * Runs `sql` (one or more statements) on data table `name` with positional parameters
   * `$1`, `$2`, … bound from `params`, and returns the rows of the last statement. (Which
   * tables it wrote is the pipeline layer's reading of the SQL: `datatableWrites`.)
   * @throws AssetError `DATATABLE_QUERY_FAILED` with DuckDB's message
   */
  async query(
    name: string,
    sql: string,
    params: readonly unknown[] = [],
    setup?: QuerySetup,
  ): Promise<Record<string, unknown>[]> {
    const file = this.file(name);
    const alias = `sluice_dt_${name.replace(/-/g, "_")}`;
    const valueOf = (pname: string): unknown => {
      const index = Number(pname);
      if (!Number.isInteger(index) || index < 1 || index > params.length) {
        throw new AssetError(
          "DATATABLE_QUERY_FAILED",
          `parameter $${pname} has no value: the query passes ${params.length} value(s); number them $1..$${params.length}`,
        );
      }
      return toDuckValue(params[index - 1]);
    };
    const rows = await withDuckDb([file], async (conn) => {
      let prepared: Awaited<ReturnType<QuerySetup>> | undefined;
      try {
        await attachWithRetry(conn, `ATTACH ${sqlString(file)} AS ${alias}`);
        prepared = await setup?.(conn, valueOf);
        await conn.run(`USE ${alias}`);
        if (prepared?.schemas.length) {
          const path = [`${alias}.main`, ...prepared.schemas.map((s) => `memory.${s}`)].join(",");
          await conn.run(`SET search_path = ${sqlString(path)}`);
        }
        return await runStatements(conn, prepared?.sql ?? sql, valueOf);
      } catch (err) {
        if (err instanceof AssetError) throw err;
        throw new AssetError(
          "DATATABLE_QUERY_FAILED",
          `query on data table ${JSON.stringify(name)} failed: ${(err as Error).message}`,
          { cause: err },
        );
      } finally {
        await prepared?.close();
      }
    });
    return rows;
  }
}

/** How long a query waits for another process to release a data table's file. */
const LOCK_WAIT_MS = 10_000;

/** Attaches, waiting while another process holds the file's lock (DuckDB allows one writer process per file). */
async function attachWithRetry(conn: { run(sql: string): Promise<unknown> }, sql: string): Promise<void> {
  const end = Date.now() + LOCK_WAIT_MS;
  for (let wait = 20; ; wait = Math.min(500, wait * 2)) {
    try {
      await conn.run(sql);
      return;
    } catch (err) {
      if (!/lock/i.test((err as Error).message) || Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** A JS value as something DuckDB can bind (objects as JSON text). */
function toDuckValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object" && v !== null) return JSON.stringify(v);
  return v;
}
