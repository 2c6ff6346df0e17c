/**
 * SQLite's STAT4 histograms (written by `ANALYZE` or `PRAGMA optimize`, which a user may run on
 * a long-lived file) make every prepared statement whose plan could depend on a bound value of
 * an indexed column expire whenever that value is re-bound: it is prepared again on each run.
 * On the hot path (a claim's candidates, the next due time, retention) that cost 40–190 µs per
 * statement instead of 3–4 µs on a history of 1,100,000 runs (issue 15, "flat as history
 * grows"). The store's statements name their indexes where the choice matters, so it keeps no
 * STAT4 samples; the per-index row counts of `sqlite_stat1` stay.
 */
import type Database from "better-sqlite3";

/** Removes STAT4 samples from `db` (opened for writing) and reloads the statistics; a no-op without them. */
export function dropStat4(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat4'").get();
  if (!exists || !db.prepare("SELECT 1 FROM sqlite_stat4 LIMIT 1").get()) return;
  db.exec("DELETE FROM sqlite_stat4");
  // Statistics are read when the schema is loaded: this reloads them without the samples.
  db.exec("ANALYZE sqlite_schema");
}
