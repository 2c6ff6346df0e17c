/**
 * Temp tables of a script's setup statements, found with DuckDB's own parser: a
 * `CREATE [OR REPLACE] TEMP|TEMPORARY TABLE|VIEW [IF NOT EXISTS] <name> AS <query>` statement
 * gives its name and its query, whose column lineage is what the table's columns are made of
 * (`pipeline/lineage-through.ts` follows a script's lineage through them). DuckDB serializes only
 * SELECT statements (`json_serialize_sql`), so the statement is cut lexically where its query may
 * begin and each cut is checked by the parser; nothing is executed.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../assets/duckdb.js";
import { tableRefs } from "../column-lineage.js";

/** A temp table a setup statement makes from a query. */
export interface TempTableQuery {
  /** Its name as DuckDB parsed it. */
  readonly name: string;
  /** Its query's text. */
  readonly query: string;
  /** Its query as DuckDB parsed it (`json_serialize_sql`). */
  readonly tree: unknown;
}

/** `json_serialize_sql` of `sql` on `conn` (nothing runs): the parse tree, or `{ error: true, … }`. */
export async function serializeSql(
  conn: DuckDBConnection,
  sql: string,
): Promise<{ error?: boolean; error_message?: string }> {
  const reader = await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString(sql)}) AS j`);
  return JSON.parse(String(reader.getRowObjects()[0]!.j)) as { error?: boolean; error_message?: string };
}

/**
 * Offsets just after each top-level `AS` word of a statement (outside quotes, parentheses and
 * comments-free text as `splitSqlStatements` leaves it): where the query of a
 * `CREATE … TABLE name AS <query>` may start. Lexical only; DuckDB's parser decides (see {@link tempTableQuery}).
 */
function asOffsets(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      i = end === -1 ? text.length : end;
    } else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (
      depth === 0 &&
      text.slice(i, i + 2).toUpperCase() === "AS" &&
      /\s/.test(text[i - 1] ?? "") &&
      /\s/.test(text[i + 2] ?? "")
    )
      out.push(i + 2);
  }
  return out;
}

/** DuckDB's parse of `sql` when it is one SELECT, else undefined. */
async function selectTree(conn: DuckDBConnection, sql: string): Promise<unknown> {
  const tree = await serializeSql(conn, sql);
  return tree.error ? undefined : tree;
}

/**
 * The temp table a setup statement creates from a query, or undefined for any other statement.
 * The statement is cut after its first top-level `AS` where both halves parse with DuckDB's
 * parser: the head as the `CREATE TEMP TABLE <name>` of a `SELECT … FROM <name>` stand-in (its
 * last word, the name), the rest as a SELECT.
 */
export async function tempTableQuery(conn: DuckDBConnection, text: string): Promise<TempTableQuery | undefined> {
  for (const at of asOffsets(text)) {
    const head = text.slice(0, at - 2).trim();
    const words = head.split(/\s+/).map((w) => w.toUpperCase());
    // CREATE [OR REPLACE] TEMP|TEMPORARY TABLE|VIEW [IF NOT EXISTS] <name> (the name may hold spaces when quoted)
    let i = words[0] === "CREATE" ? 1 : 0;
    if (words[i] === "OR" && words[i + 1] === "REPLACE") i += 2;
    const temp = words[i] === "TEMP" || words[i] === "TEMPORARY";
    const kind = words[i + 1];
    if (i === 0 || !temp || (kind !== "TABLE" && kind !== "VIEW")) return undefined;
    i += 2;
    if (words[i] === "IF" && words[i + 1] === "NOT" && words[i + 2] === "EXISTS") i += 3;
    let name = head; // the rest of the head as written (a quoted name keeps its own spaces)
    for (let k = 0; k < i; k++) name = name.replace(/^\S+\s+/, "");
    const query = text.slice(at);
    const tree = await selectTree(conn, query);
    if (tree === undefined) continue;
    const named = name ? await selectTree(conn, `SELECT * FROM ${name}`) : undefined;
    const ref = named === undefined ? undefined : tableRefs(named)[0];
    if (!ref) return undefined;
    return { name: ref.table, query: query.trim(), tree };
  }
  return undefined;
}
