/**
 * `ducklake_snapshot_changes.changes_made` (DuckLake 1.0): a comma-separated list of
 * `kind:value` entries, names written as quoted SQL identifiers (`created_table:"main"."t"`),
 * ids as numbers. Formatting for the writer and parsing into the shape DuckDB's
 * `ducklake_snapshots()` reports (`{tables_created: ["main.t"], tables_inserted_into: ["1"]}`). Pure.
 */

/** One change made by a snapshot. */
export type SnapshotChange =
  | { readonly kind: "created_schema"; readonly schema: string }
  | { readonly kind: "created_table"; readonly schema: string; readonly table: string }
  | {
      readonly kind:
        "inserted_into_table" | "deleted_from_table" | "altered_table" | "dropped_table" | "compacted_table";
      readonly tableId: number;
    }
  | { readonly kind: "dropped_schema"; readonly schemaId: number };

const REPORT_KEY: Readonly<Record<string, string>> = {
  created_schema: "schemas_created",
  created_table: "tables_created",
  created_view: "views_created",
  inserted_into_table: "tables_inserted_into",
  deleted_from_table: "tables_deleted_from",
  compacted_table: "tables_compacted",
  dropped_schema: "schemas_dropped",
  dropped_table: "tables_dropped",
  dropped_view: "views_dropped",
  altered_table: "tables_altered",
  altered_view: "views_altered",
};

/** A name as a quoted SQL identifier (`"a""b"`). */
function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The `changes_made` text of a list of changes (in the order given, duplicates removed). */
export function formatChanges(changes: readonly SnapshotChange[]): string {
  const parts = changes.map((c) => {
    switch (c.kind) {
      case "created_schema":
        return `created_schema:${quoteName(c.schema)}`;
      case "created_table":
        return `created_table:${quoteName(c.schema)}.${quoteName(c.table)}`;
      case "dropped_schema":
        return `dropped_schema:${c.schemaId}`;
      default:
        return `${c.kind}:${c.tableId}`;
    }
  });
  return [...new Set(parts)].join(",");
}

/** Split `changes_made` on commas outside double quotes. */
function entries(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === "," && !quoted) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur !== "") out.push(cur);
  return out;
}

/** `"main"."orders"` → `main.orders` (quotes removed, doubled quotes undone). */
function unquote(value: string): string {
  const names: string[] = [];
  const re = /"((?:[^"]|"")*)"|([^.]+)/g;
  for (let m = re.exec(value); m; m = re.exec(value)) names.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!);
  return names.join(".");
}

/** `changes_made` as DuckDB's `ducklake_snapshots()` reports it (unknown kinds kept under their own name). */
export function reportChanges(text: string | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of entries(text ?? "")) {
    const at = entry.indexOf(":");
    if (at < 0) continue;
    const kind = entry.slice(0, at);
    const key = REPORT_KEY[kind] ?? kind;
    (out[key] ??= []).push(unquote(entry.slice(at + 1)));
  }
  return out;
}

/** Change kinds (as {@link reportChanges} names them) that name a table by id. */
const TABLE_ID_KEYS = [
  "tables_inserted_into",
  "tables_deleted_from",
  "tables_altered",
  "tables_dropped",
  "tables_compacted",
];

/**
 * Whether a snapshot's `changes_made` created table `qualified` (`schema.table`) or changed the
 * table with id `tableId` (when it exists).
 */
export function changesTouchTable(text: string | null, qualified: string, tableId: number | undefined): boolean {
  const report = reportChanges(text);
  if (report.tables_created?.includes(qualified)) return true;
  if (tableId === undefined) return false;
  const id = String(tableId);
  return TABLE_ID_KEYS.some((key) => report[key]?.includes(id));
}
