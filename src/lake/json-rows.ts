/**
 * DuckDB results as JSON rows in the lake's value conventions: integers as JSON numbers
 * (strings beyond 2^53), DECIMALs as exact strings, DATEs `YYYY-MM-DD`, DOUBLEs numbers,
 * timestamps as DuckDB prints them, NULL as null.
 */
import { type DuckDBResultReader, DuckDBTypeId } from "@duckdb/node-api";

const WIDE_INTEGERS = new Set<number>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
]);

/** The rows of a fully read result. */
export function jsonRows(reader: DuckDBResultReader): Record<string, unknown>[] {
  const names = reader.columnNames();
  const wide = reader.columnTypes().map((t) => WIDE_INTEGERS.has(t.typeId));
  return (reader.getRowObjectsJson() as Record<string, unknown>[]).map((row) => {
    const out: Record<string, unknown> = {};
    names.forEach((n, i) => {
      const v = row[n];
      out[n] = wide[i] && typeof v === "string" && Number.isSafeInteger(Number(v)) ? Number(v) : v;
    });
    return out;
  });
}
