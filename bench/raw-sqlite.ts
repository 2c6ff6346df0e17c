/** The machine's raw SQLite limit: single-row commits per second with WAL and synchronous=FULL. */
import { join } from "node:path";
import Database from "better-sqlite3";

/** Commits one row per transaction for `ms` milliseconds; returns commits/s. */
export function rawSqliteCommitsPerSecond(dir: string, ms = 2_000): number {
  const db = new Database(join(dir, "raw.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < 200; i++) insert.run("warm-up");
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    insert.run("x");
    n++;
  }
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return n / seconds;
}
