/**
 * The columns a SELECT returns, from DuckDB's binder (I/O): the statement is prepared, never
 * run, and its result names and types are read from the prepared statement. Cheaper than
 * `DESCRIBE <query>`, which binds the same way but also builds and returns a result.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { lakeTypeOf } from "./column-types.js";
import type { SourceColumn } from "./write-plan.js";

/** Names and DuckLake types of the columns `select` returns. @throws LakeError for a type a lake cannot store, DuckDB's error for bad SQL */
export async function sourceColumns(conn: DuckDBConnection, select: string): Promise<SourceColumn[]> {
  const prepared = await conn.prepare(select);
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
