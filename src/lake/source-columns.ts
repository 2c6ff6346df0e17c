/**
 * The columns a SELECT returns, from DuckDB's binder (I/O): the statement is prepared, never
 * run, and its result names and types are read from the prepared statement. Cheaper than
 * `DESCRIBE <query>`, which binds the same way but also builds and returns a result.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from "@duckdb/node-api";
import { lakeTypeOf } from "./column-types.js";
import type { SourceColumn } from "./write-plan.js";

/**
 * `select` with a LIMIT whose value is a parameter: DuckDB prepares a statement with a parameter
 * it has no value for only as far as binding (names and types), without optimizing and planning
 * it as it does a statement it could run (measured: about half the CPU of preparing `select`
 * itself, near that of `SELECT 1`). A parenthesised query keeps its column names as they are
 * (`SELECT * FROM (…)` would rename duplicates). Pure.
 */
export function bindOnly(select: string): string {
  return `(${select}\n) LIMIT $1`;
}

/** Prepare `select` only as far as binding, or as it is when DuckDB refuses the LIMIT around it. */
async function prepareForColumns(conn: DuckDBConnection, select: string): Promise<DuckDBPreparedStatement> {
  try {
    return await conn.prepare(bindOnly(select));
  } catch {
    // a SELECT with its own LIMIT, a trailing semicolon, a statement that is not a query, or
    // one that is wrong: prepared as given, which gives its columns or DuckDB's own error
    return conn.prepare(select);
  }
}

/** Names and DuckLake types of the columns `select` returns. @throws LakeError for a type a lake cannot store, DuckDB's error for bad SQL */
export async function sourceColumns(conn: DuckDBConnection, select: string): Promise<SourceColumn[]> {
  const prepared = await prepareForColumns(conn, select);
  try {
    const out: SourceColumn[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      // An alias (JSON) is the name DESCRIBE prints; the type itself would say VARCHAR.
      out.push({ name: prepared.columnName(i), lakeType: lakeTypeOf(type.alias ?? type.toString()) });
    }
    return out;
  } finally {
    prepared.destroySync();
  }
}
