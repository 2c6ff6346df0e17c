/**
 * The catalog database as Sluice's lake code sees it: parameterised SQL (`?` placeholders)
 * returning plain rows, and transactions. Implemented on SQLite (`catalog-sqlite.ts`) and
 * on a DuckDB file (`catalog-duckdb.ts`, read-only). Only standard SQL that both accept is
 * sent; values come back as numbers, strings, booleans or null (see the `num`/`bool`/`str`
 * helpers for the dialect differences: SQLite stores booleans as 0/1, DuckDB BIGINTs arrive
 * as strings).
 */

/** One result row. */
export type CatalogRow = Readonly<Record<string, unknown>>;

/** A catalog database connection. */
export interface CatalogDb {
  /** Which engine holds the catalog. */
  readonly dialect: "sqlite" | "duckdb" | "postgres";
  /** The folder relative `data_path`s are resolved against. */
  readonly baseDir: string;
  /** Run a query and return its rows. */
  all(sql: string, params?: readonly unknown[]): Promise<CatalogRow[]>;
  /** Run a statement. */
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Run `fn` in one transaction that takes the write lock first; rolled back when `fn` throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A catalog integer (number, bigint or numeric string). */
export function num(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v))) return Number(v);
  throw new TypeError(`expected an integer in the catalog, got ${JSON.stringify(v)}`);
}

/** A nullable catalog integer. */
export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

/** A catalog boolean (true/false, 0/1, 't'/'f'). */
export function bool(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "number" || typeof v === "bigint") return Number(v) !== 0;
  if (typeof v === "string") return ["1", "t", "true"].includes(v.toLowerCase());
  return false;
}

/** A nullable catalog string. */
export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
