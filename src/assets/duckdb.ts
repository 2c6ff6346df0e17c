/**
 * DuckDB sessions: a fresh in-memory instance per unit of work, with the DuckDB files it
 * attaches locked in this process for its duration (DuckDB does not stop two instances
 * of one process from opening the same file, which would corrupt it), closed afterwards
 * so other processes can open the files. Results are converted to plain JSON values.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type * as DuckDB from "@duckdb/node-api";
import type { DuckDBConnection, DuckDBResultReader, DuckDBValueConverter, JS } from "@duckdb/node-api";
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

/** A DuckDB value as plain JSON: big integers as numbers (strings beyond 2^53), timestamps as ISO strings. */
function toJsonValue(value: unknown): unknown {
  if (typeof value === "bigint")
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toJsonValue(v)]));
  }
  return value;
}

let jsValues: DuckDBValueConverter<JS> | undefined;

/**
 * DuckDB's JavaScript values, but a DATE (at any depth: lists, structs) as the calendar date it
 * is, `YYYY-MM-DD`: DuckDB's JS conversion makes it a Date at UTC midnight, which would print as
 * a timestamp (`2026-01-05T00:00:00.000Z`). TIMESTAMPs stay Dates (ISO strings in JSON). Read from
 * the bindings on first use, as DuckDB itself is (a session has loaded them by then).
 */
function jsValueConverter(): DuckDBValueConverter<JS> {
  if (jsValues) return jsValues;
  const { DuckDBTypeId, JSDuckDBValueConverter } = createRequire(import.meta.url)("@duckdb/node-api") as typeof DuckDB;
  const convert: DuckDBValueConverter<JS> = (value, type, self) =>
    type.typeId === DuckDBTypeId.DATE && value !== null ? String(value) : JSDuckDBValueConverter(value, type, self);
  return (jsValues = convert);
}

/** The rows of a result as JSON objects (at most `limit`). */
function resultRows(reader: DuckDBResultReader, limit = Number.POSITIVE_INFINITY): Record<string, unknown>[] {
  const rows = reader.convertRowObjects(jsValueConverter());
  return rows.slice(0, limit).map((r) => toJsonValue(r) as Record<string, unknown>);
}

/**
 * Runs every statement of `sql` on `conn`, binding each named parameter (`$name`, `$1`)
 * to `valueOf(name)` (which throws, with the caller's own error, for a name it lacks),
 * and returns the rows of the last statement (at most `limit`).
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
    last = resultRows(await prepared.runAndReadAll(), limit);
  }
  return last;
}
