/**
 * Seeds a migrated store with history, as a long-lived installation has it: `finished`
 * succeeded one-step runs (each with its step) finished 200 days ago, and `parked` runs of
 * the bench workflows: half sleeping until tomorrow (a pending `sleep` step), half waiting
 * for an event with no deadline (a pending `wait` step). Direct SQL, one transaction per
 * table; the bench workflows' names are used so that claims must skip the parked runs.
 */
import Database from "better-sqlite3";
import pg from "pg";

/** How much history to seed. */
export interface SeedSize {
  finished: number;
  parked: number;
}

const DAY = 86_400_000;

/** Row expressions over a series `i` (the SQL is the same on both stores apart from the series and `||`). */
function statements(series: (n: number) => string, now: number, size: SeedSize): string[] {
  const old = now - 200 * DAY;
  const cols = `id, workflow, queue, payload, status, ready_at, attempt, max_attempts, backoff_base, backoff_max,
    claims, root_id, outstanding, result, created_at, started_at, finished_at, updated_at`;
  const stepCols = "run_id, key, kind, status, value, event, wake_at, attempts, position, started_at, finished_at";
  const f = size.finished;
  const half = Math.floor(size.parked / 2);
  return [
    `INSERT INTO runs (${cols}) SELECT 'seed-done-' || i, 'bench-one-step', 'default', '{"i":' || i || '}', 'succeeded',
       NULL, 1, 3, 1000, 3600000, 1, 'seed-done-' || i, 0, '1', ${old} + i, ${old} + i, ${old} + i + 2, ${old} + i + 2 FROM ${series(f)}`,
    `INSERT INTO steps (${stepCols}) SELECT 'seed-done-' || i, 'only', 'step', 'done', '1', NULL, NULL, 1, 0, ${old} + i, ${old} + i + 1
       FROM ${series(f)}`,
    `INSERT INTO runs (${cols}) SELECT 'seed-sleep-' || i, 'bench-five-steps', 'default', '{"i":' || i || '}', 'waiting',
       ${now + DAY} + i, 1, 3, 1000, 3600000, 1, 'seed-sleep-' || i, 0, NULL, ${now} - i, ${now} - i, NULL, ${now} FROM ${series(half)}`,
    `INSERT INTO steps (${stepCols}) SELECT 'seed-sleep-' || i, 'nap', 'sleep', 'pending', NULL, NULL, ${now + DAY} + i, 0, 0, ${now} - i, NULL
       FROM ${series(half)}`,
    `INSERT INTO runs (${cols}) SELECT 'seed-wait-' || i, 'bench-five-steps', 'default', '{"i":' || i || '}', 'waiting',
       NULL, 1, 3, 1000, 3600000, 1, 'seed-wait-' || i, 0, NULL, ${now} - i, ${now} - i, NULL, ${now} FROM ${series(size.parked - half)}`,
    `INSERT INTO steps (${stepCols}) SELECT 'seed-wait-' || i, 'approval', 'wait', 'pending', NULL, 'seed-event-' || (i % 1000), NULL, 0, 0, ${now} - i, NULL
       FROM ${series(size.parked - half)}`,
  ];
}

/** Seeds the SQLite file at `path` (already migrated). */
export function seedSqlite(path: string, size: SeedSize, now = Date.now()): void {
  const db = new Database(path);
  try {
    const series = (n: number) =>
      `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s)`;
    for (const sql of statements(series, now, size)) db.transaction(() => db.exec(sql))();
    db.exec("ANALYZE");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Seeds schema `schema` of the Postgres server at `url` (already migrated). */
export async function seedPostgres(url: string, schema: string, size: SeedSize, now = Date.now()): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${schema}`);
    const series = (n: number) => `generate_series(1, ${n}) AS s(i)`;
    for (const sql of statements(series, now, size)) await c.query(sql);
    await c.query("ANALYZE");
  } finally {
    await c.end();
  }
}
