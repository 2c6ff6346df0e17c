import type Database from "better-sqlite3";

/** Prepares each SQL text once per connection and reuses it. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(readonly db: Database.Database) {}

  /** The prepared statement for `sql`. */
  get(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }
}
