import type Database from "better-sqlite3";

/**
 * A statement in raw mode (each row an array: better-sqlite3 builds a plain array far faster
 * than an object with one named property per column) and where each column is in a row.
 */
export interface RawStatement {
  stmt: Database.Statement;
  columns: Readonly<Record<string, number>>;
}

/** Prepares each SQL text once per connection and reuses it. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();
  private readonly rawCache = new Map<string, RawStatement>();
  constructor(
    readonly db: Database.Database,
    /** At most this many are kept: reaching it starts the cache afresh (unbounded by default). */
    private readonly max = Infinity,
  ) {}

  /** The prepared statement for `sql` in raw mode, with its columns' positions (see {@link RawStatement}). */
  raw(sql: string): RawStatement {
    let r = this.rawCache.get(sql);
    if (!r) {
      const stmt = this.db.prepare(sql).raw(true);
      r = { stmt, columns: Object.fromEntries(stmt.columns().map((c, i) => [c.name, i])) };
      this.rawCache.set(sql, r);
    }
    return r;
  }

  /** The prepared statement for `sql`. */
  get(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      if (this.cache.size >= this.max) this.cache.clear();
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }
}
