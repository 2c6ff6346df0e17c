/**
 * `FROM <alias>.<table> AT (VERSION => n)` and `AT (TIMESTAMP => t)` on an attached lake,
 * without the ducklake extension. Each statement is parsed by DuckDB itself
 * (`json_serialize_sql`); every table reference of an attached alias that carries an AT
 * clause is pointed at a view of the table at that snapshot (`<alias>."<table>@<id>"`,
 * created on the session), and the statement is turned back into SQL with
 * `json_deserialize_sql`. Statements DuckDB cannot serialize (non-SELECTs) are left as they are.
 * An AT clause's value may be a parameter of the script (`AT (VERSION => $v)`): it is bound
 * from the script's arguments to find the snapshot.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { runStatements, sqlString } from "../assets/duckdb.js";
import { LakeError } from "./errors.js";
import { jsonRows } from "../assets/duckdb-json.js";
import type { LakeReader } from "./reader.js";
import { ident } from "./scan-plan.js";
import type { SnapshotRef } from "./types.js";

/** A table reference with an AT clause found in a parsed statement. */
interface AtReference {
  readonly node: Record<string, unknown>;
  readonly alias: string;
  readonly table: string;
  readonly unit: string;
  readonly expr: unknown;
}

/** Every BASE_TABLE node of `aliases` with an `at_clause`, anywhere in a parsed statement (pure). */
function findAtReferences(tree: unknown, aliases: ReadonlySet<string>): AtReference[] {
  const out: AtReference[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o.type === "BASE_TABLE" && o.at_clause && typeof o.at_clause === "object") {
      const schema = String(o.schema_name ?? "") || String(o.catalog_name ?? "");
      if (aliases.has(schema)) {
        const at = o.at_clause as { unit: string; expr: unknown };
        out.push({
          node: o,
          alias: schema,
          table: String(o.table_name),
          unit: String(at.unit).toUpperCase(),
          expr: at.expr,
        });
      }
    }
    for (const child of Object.values(o)) walk(child);
  };
  walk(tree);
  return out;
}

/**
 * JSON of a parsed statement for DuckDB: `query_location` is an unsigned 64-bit integer whose
 * "unknown" value (2^64 - 1) JavaScript cannot hold exactly, so it is written back exactly.
 */
function toJson(tree: unknown): string {
  return JSON.stringify(tree).replace(
    /"query_location":18446744073709552000/g,
    '"query_location":18446744073709551615',
  );
}

/** The value of an AT clause's expression as DuckDB prints it after `cast`; its parameters (`$v`, `$1`) bound by `valueOf`. */
async function evaluate(
  conn: DuckDBConnection,
  expr: unknown,
  cast: string,
  valueOf: (name: string) => unknown,
): Promise<string> {
  const template = JSON.parse(
    String(jsonRows(await conn.runAndReadAll("SELECT json_serialize_sql('SELECT 1') AS j"))[0]!.j),
  ) as { statements: Array<{ node: { select_list: unknown[] } }> };
  // Its parameters get names of their own: DuckDB cannot bind a statement whose positional
  // parameters have a gap (`$2` alone), as an AT clause's share of a query's often would.
  const names = new Map<string, string>();
  const rename = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(rename);
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o.class === "PARAMETER" && typeof o.identifier === "string") {
      const own = `sluice_at_${names.size + 1}`;
      names.set(own, o.identifier);
      o.identifier = own;
    }
    Object.values(o).forEach(rename);
  };
  const own = structuredClone(expr);
  rename(own);
  template.statements[0]!.node.select_list = [own];
  const [sql] = jsonRows(await conn.runAndReadAll(`SELECT json_deserialize_sql(${sqlString(toJson(template))}) AS s`));
  const [row] = await runStatements(
    conn,
    `SELECT CAST(CAST((${String(sql!.s).replace(/;\s*$/, "")}) AS ${cast}) AS VARCHAR) AS v`,
    (name) => valueOf(names.get(name) ?? name),
  );
  return String(row!.v);
}

/** For statements run without parameters: an AT clause naming one is an error that says so. */
function noParameters(name: string): never {
  throw new LakeError(
    "LAKE_FEATURE_UNSUPPORTED",
    `AT (…) uses the parameter $${name}, which has no value here; give the version or time as a literal`,
  );
}

/**
 * Rewrite the AT clauses of one statement. `lakeOf(alias)` opens the reader of an
 * attached alias. @returns the statement's SQL (unchanged when it has no AT clause on a lake)
 */
export async function rewriteTimeTravel(
  conn: DuckDBConnection,
  statement: string,
  aliases: ReadonlySet<string>,
  lakeOf: (alias: string) => LakeReader,
  /** Values of the statement's parameters (`$v`, `$1`), which an AT clause may use. */
  valueOf: (name: string) => unknown = noParameters,
): Promise<string> {
  if (!/\bAT\s*\(/i.test(statement)) return statement;
  let tree: { error?: boolean; statements?: unknown[] };
  try {
    const [row] = jsonRows(await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString(statement)}) AS j`));
    tree = JSON.parse(String(row!.j));
  } catch {
    return statement;
  }
  if (tree.error) return statement;
  const refs = findAtReferences(tree, aliases);
  if (refs.length === 0) return statement;
  await conn.run("SET TimeZone = 'UTC'");
  for (const ref of refs) {
    let snapshot: SnapshotRef;
    if (ref.unit === "VERSION")
      snapshot = { kind: "version", snapshotId: Number(await evaluate(conn, ref.expr, "BIGINT", valueOf)) };
    else if (ref.unit === "TIMESTAMP")
      snapshot = { kind: "timestamp", at: await evaluate(conn, ref.expr, "TIMESTAMPTZ", valueOf) };
    else
      throw new LakeError(
        "LAKE_FEATURE_UNSUPPORTED",
        `AT (${ref.unit} => …) is not supported; use AT (VERSION => n) or AT (TIMESTAMP => t)`,
      );
    const lake = lakeOf(ref.alias);
    const { sql, snapshot: s } = await lake.scan(ref.table, snapshot);
    const view = `${ref.table}@${s.snapshotId}`;
    await conn.run(`CREATE OR REPLACE VIEW ${ident(ref.alias)}.${ident(view)} AS ${sql}`);
    ref.node.table_name = view;
    ref.node.at_clause = null;
  }
  const [out] = jsonRows(await conn.runAndReadAll(`SELECT json_deserialize_sql(${sqlString(toJson(tree))}) AS s`));
  return String(out!.s);
}
