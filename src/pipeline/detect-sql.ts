/**
 * Detection of asset reads and writes in SQL (DuckDB) text, best effort, no AST:
 *
 * - `COPY (…) TO '<uri>'` / `COPY t TO '<uri>'` is a write; `COPY t FROM '<uri>'` a read.
 * - `read_parquet('<uri>')`, `read_csv(…)`, `read_json(…)`, `parquet_scan(…)` … (also with a
 *   `['a', 'b']` list) and `FROM '<uri>'` are reads.
 * - `ATTACH 'ducklake://lake' AS dl` (or `datatable://…`) names an alias; then
 *   `INSERT INTO dl.t`, `CREATE TABLE dl.t`, `UPDATE`, `DELETE FROM`, `MERGE INTO` … are writes
 *   of `ducklake://lake/t` and `FROM dl.t` / `JOIN dl.t` are reads.
 * - Unqualified tables map to the script's single datatable client, if it has exactly one.
 */
import { emptyOutput, type DetectorOutput } from "./detect-types.js";
import { hasAssetScheme } from "./asset-uri.js";
import { readStringLiteral, skipParens } from "./source-scan.js";

const READERS = [
  "read_parquet",
  "parquet_scan",
  "read_csv",
  "read_csv_auto",
  "read_json",
  "read_json_auto",
  "read_json_objects",
  "read_ndjson",
  "read_ndjson_auto",
  "read_text",
  "read_blob",
  "read_xlsx",
  "delta_scan",
  "iceberg_scan",
];

/** An `ATTACH '<kind>://<name>' AS <alias>`. */
export interface SqlAlias {
  readonly alias: string;
  readonly base: string;
}

function literalAfter(
  text: string,
  index: number,
): { value: string; dynamic: boolean; start: number; end: number } | undefined {
  const start = index + (/^\s*/.exec(text.slice(index))?.[0].length ?? 0);
  const lit = readStringLiteral(text, start);
  return lit ? { ...lit, start } : undefined;
}

function push(
  out: DetectorOutput,
  value: { value: string; dynamic: boolean },
  access: "read" | "write",
  offset: number,
  via: string,
): void {
  if (!hasAssetScheme(value.value)) return;
  if (value.dynamic) out.dynamic.push({ offset, via });
  else out.detections.push({ uri: value.value, access, offset, via });
}

function copies(text: string, out: DetectorOutput): void {
  for (const m of text.matchAll(/\bCOPY\b\s*/gi)) {
    let i = m.index + m[0].length;
    if (text[i] === "(") {
      const after = skipParens(text, i);
      if (after === undefined) continue;
      i = after;
    } else {
      const name = /^[\w."]+/.exec(text.slice(i));
      if (!name) continue;
      i += name[0].length;
    }
    const dir = /^\s*(TO|FROM)\b/i.exec(text.slice(i));
    if (!dir) continue;
    const lit = literalAfter(text, i + dir[0].length);
    const to = (dir[1] as string).toUpperCase() === "TO";
    if (lit) push(out, lit, to ? "write" : "read", m.index, to ? "COPY … TO" : "COPY … FROM");
  }
}

function readers(text: string, out: DetectorOutput): void {
  const re = new RegExp(`\\b(${READERS.join("|")})\\s*\\(\\s*`, "gi");
  for (const m of text.matchAll(re)) {
    let i = m.index + m[0].length;
    const via = (m[1] as string).toLowerCase();
    const list = text[i] === "[";
    if (list) i++;
    for (;;) {
      const lit = literalAfter(text, i);
      if (!lit) break;
      push(out, lit, "read", m.index, via);
      const sep = /^\s*,\s*/.exec(text.slice(lit.end));
      if (!list || !sep) break;
      i = lit.end + sep[0].length;
    }
  }
  for (const m of text.matchAll(/\b(FROM|JOIN)\s+(?=['"])/gi)) {
    const lit = literalAfter(text, m.index + m[0].length);
    if (lit) push(out, lit, "read", m.index, `${(m[1] as string).toUpperCase()} '<uri>'`);
  }
}

/** Find `ATTACH '<kind>://<name>' AS alias` statements. */
export function sqlAliases(text: string): SqlAlias[] {
  const out: SqlAlias[] = [];
  for (const m of text.matchAll(/\bATTACH\s+(?:DATABASE\s+)?(?:IF\s+NOT\s+EXISTS\s+)?/gi)) {
    const lit = literalAfter(text, m.index + m[0].length);
    if (!lit || lit.dynamic) continue;
    const as = /^\s+AS\s+([A-Za-z_]\w*)/i.exec(text.slice(lit.end));
    const base = /^(ducklake|datatable):\/\/([A-Za-z0-9_-]+)\/?$/i.exec(lit.value);
    if (as && base) out.push({ alias: as[1] as string, base: `${(base[1] as string).toLowerCase()}://${base[2]}` });
  }
  return out;
}

const WRITE_TABLE =
  /\b(INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|MERGE\s+INTO|CREATE\s+(?:OR\s+REPLACE\s+)?TABLE(?:\s+IF\s+NOT\s+EXISTS)?|TRUNCATE(?:\s+TABLE)?|DROP\s+TABLE(?:\s+IF\s+EXISTS)?|ALTER\s+TABLE)\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w.])/gi;
const READ_TABLE = /\b(FROM|JOIN)\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w.]|\s*\()/gi;
const KEYWORDS = new Set(["set", "select", "where", "values", "lateral", "unnest", "only"]);

/** A table a SQL statement writes or reads, split into qualifier and table name. */
export interface TableUse {
  readonly access: "read" | "write";
  readonly qualifier?: string;
  readonly table: string;
  readonly offset: number;
  readonly via: string;
}

/** Tables written (INSERT/CREATE/UPDATE/DELETE/MERGE/TRUNCATE/DROP/ALTER) and read (FROM/JOIN). */
export function tableUses(text: string): TableUse[] {
  const out: TableUse[] = [];
  const add = (access: "read" | "write", name: string, offset: number, via: string): void => {
    const parts = name.split(".");
    const table = parts[parts.length - 1] as string;
    if (KEYWORDS.has(table.toLowerCase())) return;
    out.push(
      parts.length > 1 ? { access, qualifier: parts[0] as string, table, offset, via } : { access, table, offset, via },
    );
  };
  for (const m of text.matchAll(WRITE_TABLE))
    add("write", m[2] as string, m.index, (m[1] as string).split(/\s+/)[0]?.toUpperCase() ?? "");
  for (const m of text.matchAll(READ_TABLE)) {
    if (/DELETE\s+$/i.test(text.slice(Math.max(0, m.index - 10), m.index))) continue;
    add("read", m[2] as string, m.index, (m[1] as string).toUpperCase());
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** Find literal-URI reads and writes (COPY, reader functions, FROM '<uri>') in SQL text. */
export function detectSqlLiterals(text: string): DetectorOutput {
  const out = emptyOutput();
  copies(text, out);
  readers(text, out);
  return out;
}

/** The tables written by `sql` run on data table `name`, as `datatable://<name>/<table>` URIs. */
export function datatableWrites(name: string, sql: string): string[] {
  return [
    ...new Set(
      tableUses(sql)
        .filter((u) => u.access === "write")
        .map((u) => `datatable://${name}/${u.table}`),
    ),
  ];
}
