import type Database from "better-sqlite3";

/** Prepares each SQL text once per connection and reuses it. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(
    readonly db: Database.Database,
    /** At most this many are kept: reaching it starts the cache afresh (unbounded by default). */
    private readonly max = Infinity,
  ) {}

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
