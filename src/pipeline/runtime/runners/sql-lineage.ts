/**
 * Column lineage of a materialization's trailing SELECT, inferred on the session that runs
 * it: DuckDB serializes the statement (`json_serialize_sql`), each table it references is
 * described on that same session (so temp tables of the setup statements and the views of
 * attached lakes resolve as the query sees them), and `pipeline/column-lineage.ts` walks
 * the tree. A table of an attached `ducklake://` lake is named by its asset URI; a column of a
 * temp table the setup statements made from a query cites what that query read
 * (`pipeline/lineage-through.ts`).
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../../assets/duckdb.js";
import { jsonRows } from "../../../assets/duckdb-json.js";
import { ident } from "../../../lake/scan-plan.js";
import { inferColumnLineage, tableRefs, type KnownTable, type LineageResult } from "../../column-lineage.js";
import { lineageThrough } from "../../lineage-through.js";
import { tempTableQuery } from "../temp-tables.js";

async function describe(conn: DuckDBConnection, parts: readonly string[]): Promise<string[] | undefined> {
  try {
    const rows = jsonRows(await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${parts.map(ident).join(".")}`));
    return rows.map((r) => String(r.column_name));
  } catch {
    return undefined; // a CTE name, or a table that does not exist: the walker decides
  }
}

/**
 * The lineage of `select` on `conn`. `lakes` maps an attached alias to its lake name;
 * `outputNames` are the columns the SELECT returned (they name unnamed expressions).
 * Never throws for a query it cannot follow: that is a warning of the result.
 */
export async function inferSelectLineage(
  conn: DuckDBConnection,
  select: string,
  lakes: ReadonlyMap<string, string>,
  outputNames: readonly string[],
): Promise<LineageResult> {
  const [row] = jsonRows(await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString(select)}) AS j`));
  const tree = JSON.parse(String(row!.j)) as { error?: boolean; error_message?: string };
  if (tree.error)
    return {
      columns: [],
      warnings: [`DuckDB could not serialize the SELECT: ${tree.error_message ?? "unknown error"}`],
      partial: true,
    };
  const known = new Map<string, KnownTable>();
  for (const ref of tableRefs(tree)) {
    const parts = [ref.catalog, ref.schema, ref.table].filter(Boolean);
    const lake = !ref.catalog && lakes.get(ref.schema);
    const table = lake ? `ducklake://${lake}/${ref.table.replace(/@\d+$/, "")}` : parts.join(".");
    const columns = await describe(conn, parts);
    known.set(parts.join("\u0000"), { table, ...(columns && { columns }) });
  }
  return inferColumnLineage(
    tree,
    (ref) => known.get([ref.catalog, ref.schema, ref.table].filter(Boolean).join("\u0000")),
    outputNames,
  );
}

/**
 * The lineage of each temp table the setup `statements` (already run on `conn`) made from a
 * query, each followed through the ones before it, by the names lineage sources give them
 * (`t` and `temp.t`): what {@link inferSelectLineage}'s result is followed through.
 */
export async function inferTempLineage(
  conn: DuckDBConnection,
  statements: readonly string[],
  lakes: ReadonlyMap<string, string>,
): Promise<Map<string, LineageResult>> {
  const through = new Map<string, LineageResult>();
  for (const text of statements) {
    const temp = await tempTableQuery(conn, text);
    if (!temp) continue;
    const names = await describe(conn, [temp.name]);
    if (!names) continue;
    const r = lineageThrough(await inferSelectLineage(conn, temp.query, lakes, names), through);
    through.set(temp.name, r);
    through.set(`temp.${temp.name}`, r);
  }
  return through;
}
