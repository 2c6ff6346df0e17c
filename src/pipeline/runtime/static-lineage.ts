/**
 * Column lineage of managed SQL materializations before they write (seed 001: "SQL-AST
 * inference runs when a pipeline is deployed"): each loaded `// materialize ducklake://…`
 * SQL script's trailing SELECT is parsed by DuckDB itself (`json_serialize_sql`, on an
 * in-memory instance that runs nothing of the script) and walked by `column-lineage.ts`, as a
 * write does — but without a session, so the columns of the tables it reads come from what
 * is known without running anything:
 *
 * - a lake table (`dl.t` of an `ATTACH 'ducklake://<lake>' AS dl`) has the columns of its
 *   latest schema version in the store (what its last managed write produced), else the
 *   outputs of the loaded managed SQL script that writes it, inferred the same way (plus
 *   `_partition` when that script is `// partitioned`);
 * - a temp table or view a setup statement makes from a query (`CREATE TEMP TABLE x AS SELECT …`)
 *   has the outputs of that query, inferred the same way, and a column read from it cites what
 *   that query read (`pipeline/lineage-through.ts`: a temp table is not an asset);
 * - anything else (temp tables made from a column list, tables of other databases, table
 *   functions) is of unknown schema: its qualified columns still name it, `*` over it is not
 *   expanded and an unqualified column it may hold is `unknown` (said in the warnings).
 *
 * The parse of a script is kept by its source (a parse reads nothing else), so a reload or a
 * graph request parses only the scripts whose source changed; what depends on other scripts and
 * the store (the columns of the tables it reads) is walked again each time, without DuckDB.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString, withDuckDb } from "../../assets/duckdb.js";
import { PARTITION_TOKEN } from "../asset-uri.js";
import {
  inferColumnLineage,
  tableRefs,
  unnamedExpressions,
  type KnownTable,
  type LineageResult,
  type TableRef,
} from "../column-lineage.js";
import { lineageThrough } from "../lineage-through.js";
import { slashCommentsToSql, splitSqlStatements } from "../materialize-body.js";
import type { MemberScript, PipelineFolder } from "./catalog.js";
import { PARTITION_COLUMN } from "../partition-column.js";
import { extractLakeAttaches } from "./runners/sql-lake.js";
import { serializeSql, tempTableQuery } from "./temp-tables.js";

/** The lineage of one managed SQL script's write, inferred from its SQL without running it. */
export interface StaticLineage {
  /** The lake table it materializes (`ducklake://<lake>/<table>`). */
  readonly asset: string;
  /** Its trailing SELECT's lineage, or undefined when DuckDB could not parse it (`warnings` say why). */
  readonly result: LineageResult | undefined;
  readonly warnings: readonly string[];
}

/** A temp table a setup statement creates from a query (`CREATE TEMP TABLE x AS SELECT …`), that query parsed. */
interface TempTable {
  /** Its name as DuckDB parsed it. */
  readonly name: string;
  readonly tree: unknown;
  readonly names: ReadonlyMap<unknown, string>;
}

/** A script's SELECT as DuckDB parsed it, with its `ducklake://` aliases. */
interface Parsed {
  readonly tree?: unknown;
  /** Temp tables of its setup statements, in order. */
  readonly temps?: readonly TempTable[];
  /** DuckDB's names of the tree's unnamed select-list expressions (`sum((amount + tax))`). */
  readonly names?: ReadonlyMap<unknown, string>;
  readonly error?: string;
  readonly lakes: ReadonlyMap<string, string>;
}

/** Parses by script source, least recently used first (at most {@link MAX_PARSED}). */
const parsedSources = new Map<string, Parsed>();
/** Sources whose parse is kept: every managed script of a large project, and the edits of a dev session. */
const MAX_PARSED = 512;

/** The kept parse of `m`'s source, now the most recently used. */
function parsedOf(m: MemberScript): Parsed | undefined {
  const parsed = parsedSources.get(m.source);
  if (parsed) {
    parsedSources.delete(m.source);
    parsedSources.set(m.source, parsed);
  }
  return parsed;
}

function keepParse(source: string, parsed: Parsed): void {
  parsedSources.set(source, parsed);
  for (const old of parsedSources.keys()) {
    if (parsedSources.size <= MAX_PARSED) break;
    parsedSources.delete(old);
  }
}

/** `{partition}` stands for a value only a run has; parsing needs some value of the same lexical kind. */
const PARTITION_PLACEHOLDER = "1970-01-01";

const managedTarget = (m: MemberScript): string | undefined => {
  const mat = m.analyzed.annotations.materialize;
  return m.language === "sql" && mat?.mode === "managed" ? mat.target.uri : undefined;
};

/** A parse tree fit for `json_deserialize_sql`: positions (uint64, beyond a JS number when unset) zeroed. */
function withoutLocations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutLocations);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, k === "query_location" ? 0 : withoutLocations(x)] as const),
  );
}

/** Whether `v` holds a cast: DuckDB's output name spells the type as the binder does (`"DATE"`, `DECIMAL(10, 2)`), not as the parse prints it. */
function hasCast(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasCast);
  if (v === null || typeof v !== "object") return false;
  if ((v as { class?: unknown }).class === "CAST") return true;
  return Object.values(v).some(hasCast);
}

/** Column references of an expression, each as its names (`["t", "c"]`); undefined when it holds a subquery. */
function columnRefs(v: unknown, out: string[][] = []): string[][] | undefined {
  if (Array.isArray(v)) {
    for (const x of v) if (!columnRefs(x, out)) return undefined;
    return out;
  }
  if (v === null || typeof v !== "object") return out;
  const o = v as { class?: unknown; column_names?: unknown };
  if (o.class === "SUBQUERY") return undefined;
  if (o.class === "COLUMN_REF" && Array.isArray(o.column_names)) out.push(o.column_names.map(String));
  for (const x of Object.values(o)) if (!columnRefs(x, out)) return undefined;
  return out;
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The name DuckDB's binder gives `text` (an expression as DuckDB printed it) as an unnamed
 * output: the statement `SELECT <text> FROM <stand-ins>` is prepared, never run, over stand-in
 * relations holding NULL under each column name the expression reads (`t.c` from one aliased
 * `t`), so only DuckDB's own naming decides; undefined when it does not bind that way.
 */
async function boundName(conn: DuckDBConnection, e: unknown, text: string): Promise<string | undefined> {
  const refs = columnRefs(e);
  if (!refs || refs.some((r) => r.length > 2)) return undefined;
  const byTable = new Map<string, Set<string>>();
  for (const r of refs) {
    const [table, column] = r.length === 2 ? [r[0]!, r[1]!] : ["", r[0]!];
    byTable.set(table, (byTable.get(table) ?? new Set()).add(column));
  }
  const from = [...byTable].map(
    ([table, columns], i) =>
      `(SELECT ${[...columns].map((c) => `NULL AS ${quoteIdent(c)}`).join(", ")}) AS ${quoteIdent(table || `__sluice_${i}`)}`,
  );
  try {
    const prepared = await conn.prepare(`SELECT ${text}${from.length ? ` FROM ${from.join(", ")}` : ""}`);
    try {
      return prepared.columnCount === 1 ? prepared.columnName(0) : undefined;
    } finally {
      prepared.destroySync();
    }
  } catch {
    return undefined;
  }
}

/**
 * The names DuckDB gives the unnamed outputs of `tree`: each expression's own text, as
 * `json_deserialize_sql` prints it inside `SELECT <expression>` (a parse of `SELECT 1` with its
 * select list replaced, so the rest of the statement is DuckDB's own). An expression with a
 * cast is named by DuckDB's binder instead ({@link boundName}: the binder spells the type its
 * own way, `CAST(x AS "DATE")`, `DECIMAL(10, 2)`); one that does not bind over stand-ins is left
 * unnamed (a position name and a warning).
 */
async function expressionNames(conn: DuckDBConnection, tree: unknown): Promise<Map<unknown, string>> {
  const names = new Map<unknown, string>();
  const unnamed = unnamedExpressions(tree);
  if (unnamed.length === 0) return names;
  const template = withoutLocations(await serializeSql(conn, "SELECT 1")) as { statements: Array<{ node: object }> };
  for (const e of unnamed) {
    const one = {
      ...template,
      statements: [
        { ...template.statements[0]!, node: { ...template.statements[0]!.node, select_list: [withoutLocations(e)] } },
      ],
    };
    try {
      const reader = await conn.runAndReadAll(
        `SELECT json_deserialize_sql(${sqlString(JSON.stringify(one))}::JSON) AS s`,
      );
      const text = String(reader.getRowObjects()[0]!.s);
      if (!text.startsWith("SELECT ")) continue;
      const name = hasCast(e) ? await boundName(conn, e, text.slice("SELECT ".length)) : text.slice("SELECT ".length);
      if (name !== undefined) names.set(e, name);
    } catch {
      // left unnamed: the output keeps a position name
    }
  }
  return names;
}

/** The temp table a setup statement creates from a query, with DuckDB's names of its unnamed outputs. */
async function tempTable(conn: DuckDBConnection, text: string): Promise<TempTable | undefined> {
  const temp = await tempTableQuery(conn, text);
  return temp && { name: temp.name, tree: temp.tree, names: await expressionNames(conn, temp.tree) };
}

async function parse(conn: DuckDBConnection, m: MemberScript): Promise<Parsed> {
  const sql = slashCommentsToSql(m.source).split(PARTITION_TOKEN).join(PARTITION_PLACEHOLDER);
  const { sql: rest, attaches } = extractLakeAttaches(sql);
  const lakes = new Map(attaches.map((a) => [a.alias, a.lake]));
  const statements = splitSqlStatements(rest);
  const last = statements.pop();
  if (!last) return { error: "it has no trailing SELECT", lakes };
  const tree = await serializeSql(conn, last.text);
  if (tree.error)
    return { error: `DuckDB could not parse its SELECT: ${tree.error_message ?? "unknown error"}`, lakes };
  const temps: TempTable[] = [];
  for (const st of statements) {
    const temp = await tempTable(conn, st.text);
    if (temp) temps.push(temp);
  }
  return { tree, temps, names: await expressionNames(conn, tree), lakes };
}

/** The parse of every script of `members`, by path: kept ones as they are, the others on one in-memory DuckDB (opened only for them). */
async function parseAll(members: readonly MemberScript[]): Promise<Map<string, Parsed>> {
  const out = new Map<string, Parsed>();
  const todo: MemberScript[] = [];
  for (const m of members) {
    const kept = parsedOf(m);
    if (kept) out.set(m.path, kept);
    else todo.push(m);
  }
  if (todo.length === 0) return out;
  await withDuckDb([], async (conn) => {
    for (const m of todo) {
      const parsed = parsedOf(m) ?? (await parse(conn, m));
      keepParse(m.source, parsed);
      out.set(m.path, parsed);
    }
  });
  return out;
}

/**
 * The pre-write lineage of every managed SQL materialization of `folders`, by script path.
 * `recordedColumns` gives a lake table's columns as its last managed write left them
 * (undefined when none is recorded or the store cannot be read).
 */
export async function inferLoadedLineage(
  folders: readonly PipelineFolder[],
  recordedColumns: (uri: string) => Promise<readonly string[] | undefined>,
): Promise<Map<string, StaticLineage>> {
  const managed = folders.flatMap((f) => f.members).filter((m) => managedTarget(m) !== undefined);
  const out = new Map<string, StaticLineage>();
  if (managed.length === 0) return out;
  let parses: Map<string, Parsed>;
  try {
    parses = await parseAll(managed);
  } catch (err) {
    // lineage is metadata: DuckDB failing to start costs the pre-write lineage, not the graph
    for (const m of managed)
      out.set(m.path, {
        asset: managedTarget(m)!,
        result: undefined,
        warnings: [`column lineage cannot be inferred before a write: ${(err as Error).message}`],
      });
    return out;
  }
  const writers = new Map<string, MemberScript>();
  for (const m of managed) if (!writers.has(managedTarget(m)!)) writers.set(managedTarget(m)!, m);
  const recorded = new Map<string, readonly string[] | undefined>();
  const visiting = new Set<string>();

  const infer = async (m: MemberScript): Promise<StaticLineage> => {
    const done = out.get(m.path);
    if (done) return done;
    const asset = managedTarget(m)!;
    const parsed = parses.get(m.path)!;
    if (parsed.error) {
      const r = {
        asset,
        result: undefined,
        warnings: [`column lineage cannot be inferred before a write: ${parsed.error}`],
      };
      out.set(m.path, r);
      return r;
    }
    visiting.add(m.path);
    const known = new Map<string, KnownTable>();
    const learn = async (tree: unknown): Promise<void> => {
      for (const ref of tableRefs(tree)) {
        const lake = !ref.catalog && ref.schema ? parsed.lakes.get(ref.schema) : undefined;
        if (!lake || known.has(refKey(ref))) continue; // the walker names it as written; its columns are not known
        const uri = `ducklake://${lake}/${ref.table}`;
        const columns = await columnsOf(uri);
        known.set(refKey(ref), { table: uri, ...(columns && { columns }) });
      }
    };
    // temp tables of the setup statements, in order: each has the outputs of its own SELECT,
    // and the lineage of each (through the ones before it) is what reading it reads
    const through = new Map<string, LineageResult>();
    for (const temp of parsed.temps ?? []) {
      await learn(temp.tree);
      const r = inferColumnLineage(temp.tree, (ref) => known.get(refKey(ref)), undefined, temp.names);
      through.set(temp.name, lineageThrough(r, through));
      const complete = !r.partial && !r.columns.some((c) => POSITION_NAME.test(c.output));
      const entry = { table: temp.name, ...(complete && { columns: r.columns.map((c) => c.output) }) };
      for (const schema of ["", "temp"]) known.set(refKey({ catalog: "", schema, table: temp.name }), entry);
    }
    await learn(parsed.tree);
    visiting.delete(m.path);
    const result = lineageThrough(
      inferColumnLineage(parsed.tree, (ref) => known.get(refKey(ref)), undefined, parsed.names),
      through,
    );
    for (const c of result.columns)
      if (POSITION_NAME.test(c.output))
        result.warnings.push(
          `output ${c.output} is named by DuckDB after its expression, which is only known when it runs; name it with AS`,
        );
    const r = { asset, result, warnings: result.warnings };
    out.set(m.path, r);
    return r;
  };

  /** A lake table's columns: its last write's, else its loaded writer's inferred outputs. */
  const columnsOf = async (uri: string): Promise<readonly string[] | undefined> => {
    if (!recorded.has(uri)) recorded.set(uri, await recordedColumns(uri));
    const fromStore = recorded.get(uri);
    if (fromStore) return fromStore;
    const writer = writers.get(uri);
    if (!writer || visiting.has(writer.path)) return undefined; // a cycle: its columns are not known yet
    const upstream = (await infer(writer)).result;
    // outputs of unknown extent, or named only by position (#2), are no schema to expand `*` over
    if (!upstream || upstream.partial || upstream.columns.some((c) => POSITION_NAME.test(c.output))) return undefined;
    const names = upstream.columns.map((c) => c.output);
    return writer.analyzed.annotations.partitioned ? [...names, PARTITION_COLUMN] : names;
  };

  for (const m of managed) await infer(m);
  return out;
}

/** How `column-lineage.ts` names an output it has no name for (`#3`). */
const POSITION_NAME = /^#\d+$/;

const refKey = (ref: TableRef): string => [ref.catalog, ref.schema, ref.table].join("\u0000");
