/**
 * DuckDB results as JSON rows in the lake's value conventions: integers as JSON numbers
 * (strings beyond 2^53), DECIMALs as exact strings, DATEs `YYYY-MM-DD`, DOUBLEs numbers,
 * timestamps as DuckDB prints them, NULL as null.
 */
import { createRequire } from "node:module";
import type * as DuckDB from "@duckdb/node-api";

let wideIntegers: Set<number> | null = null;

/**
 * DuckDB's wide integer type ids, read from the bindings on first use: a static value import
 * would load DuckDB in every process that imports the lake (every CLI command, every worker).
 */
function wideIntegerTypes(): Set<number> {
  if (wideIntegers) return wideIntegers;
  const { DuckDBTypeId } = createRequire(import.meta.url)("@duckdb/node-api") as typeof DuckDB;
  wideIntegers = new Set<number>([
    DuckDBTypeId.BIGINT,
    DuckDBTypeId.UBIGINT,
    DuckDBTypeId.HUGEINT,
    DuckDBTypeId.UHUGEINT,
  ]);
  return wideIntegers;
}

/** The rows of a fully read result. */
export function jsonRows(reader: DuckDB.DuckDBResultReader): Record<string, unknown>[] {
  const names = reader.columnNames();
  const wideTypes = wideIntegerTypes();
  // type ids only: building the full types (columnTypes) costs more than converting a few rows of nested values
  const wide = names.map((_, i) => wideTypes.has(reader.columnTypeId(i)));
  return (reader.getRowObjectsJson() as Record<string, unknown>[]).map((row) => {
    const out: Record<string, unknown> = {};
    names.forEach((n, i) => {
      const v = row[n];
      out[n] = wide[i] && typeof v === "string" && Number.isSafeInteger(Number(v)) ? Number(v) : v;
    });
    return out;
  });
}
