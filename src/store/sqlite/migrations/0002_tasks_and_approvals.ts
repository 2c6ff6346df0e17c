/**
 * Migration 2: what workflows-as-code need: who started a run (self-approval),
 * result caching, concurrency limits, approval audit, and per-database secrets
 * (resume-link signing).
 */
export const sql = /* sql */ `
ALTER TABLE runs ADD COLUMN created_by TEXT;
ALTER TABLE runs ADD COLUMN cache_key TEXT;
ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
ALTER TABLE runs ADD COLUMN concurrency_limit INTEGER;
ALTER TABLE runs ADD COLUMN concurrency_window_ms INTEGER;
CREATE INDEX runs_cache       ON runs (cache_key, finished_at) WHERE cache_key IS NOT NULL AND status = 'succeeded';
CREATE INDEX runs_concurrency ON runs (concurrency_key, started_at) WHERE concurrency_key IS NOT NULL;

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE approval_events (
  seq      INTEGER PRIMARY KEY,
  run_id   TEXT    NOT NULL,
  step_key TEXT    NOT NULL,
  actor    TEXT,
  decision TEXT    NOT NULL,
  outcome  TEXT    NOT NULL,
  via      TEXT,
  ts       INTEGER NOT NULL
);
CREATE INDEX approval_events_by_run ON approval_events (run_id, seq);
`;
