/**
 * DuckDB sessions: a fresh in-memory instance per unit of work, with the DuckDB files it
 * attaches locked in this process for its duration (DuckDB does not stop two instances
 * of one process from opening the same file, which would corrupt it), closed afterwards
 * so other processes can open the files. Results are converted to plain JSON values
 * (`duckdb-json.ts`).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { jsonRows } from "./duckdb-json.js";
import { KeyedMutex } from "./keyed-mutex.js";

const KEY = Symbol.for("sluice.duckdb-files.v1");

/** The process-wide lock table of DuckDB files (shared by every copy of this module). */
function fileLocks(): KeyedMutex {
  const g = globalThis as unknown as Record<symbol, KeyedMutex | undefined>;
  return (g[KEY] ??= new KeyedMutex());
}

/**
 * Runs `fn` on a connection of a new in-memory DuckDB instance while holding the
 * in-process locks of `files` (created folders included); closes the instance after.
 */
export async function withDuckDb<T>(files: readonly string[], fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  for (const f of files) mkdirSync(dirname(f), { recursive: true });
  return fileLocks().with(files, async () => {
    // Loaded on first use: DuckDB's bindings cost every process that imports this module (every CLI command) a few tenths of a second.
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const instance = await DuckDBInstance.create(":memory:");
    const conn = await instance.connect();
    try {
      return await fn(conn);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
}

/** A string as a SQL string literal (single quotes doubled). For paths Sluice itself chose. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Runs every statement of `sql` on `conn`, binding each named parameter (`$name`, `$1`)
 * to `valueOf(name)` (which throws, with the caller's own error, for a name it lacks),
 * and returns the rows of the last statement (at most `limit`) as JSON (`duckdb-json.ts`; values
 * handed to code, so a DECIMAL is a number when one holds it exactly).
 */
export async function runStatements(
  conn: DuckDBConnection,
  sql: string,
  valueOf: (name: string) => unknown,
  limit = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>[]> {
  const statements = await conn.extractStatements(sql);
  let last: Record<string, unknown>[] = [];
  for (let i = 0; i < statements.count; i++) {
    const prepared = await statements.prepare(i);
    const bind: Record<string, unknown> = {};
    for (let p = 1; p <= prepared.parameterCount; p++) {
      const name = prepared.parameterName(p);
      bind[name] = valueOf(name);
    }
    if (prepared.parameterCount > 0) prepared.bind(bind as Parameters<typeof prepared.bind>[0]);
    last = jsonRows(await prepared.runAndReadAll(), limit, "number");
  }
  return last;
}
