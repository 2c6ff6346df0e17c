/** Migration 1: runs, steps, logs, workflow registry, bundles, schedules. */
export const sql = /* sql */ `
CREATE TABLE runs (
  seq              INTEGER PRIMARY KEY,
  id               TEXT    NOT NULL UNIQUE,
  workflow         TEXT    NOT NULL,
  task             TEXT,
  queue            TEXT    NOT NULL,
  payload          TEXT,
  status           TEXT    NOT NULL,
  priority         INTEGER NOT NULL DEFAULT 0,
  ready_at         INTEGER,
  attempt          INTEGER NOT NULL DEFAULT 1,
  max_attempts     INTEGER NOT NULL,
  backoff_base     INTEGER NOT NULL,
  backoff_max      INTEGER NOT NULL,
  claims           INTEGER NOT NULL DEFAULT 0,
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  version          TEXT,
  parent_id        TEXT,
  parent_key       TEXT,
  root_id          TEXT    NOT NULL,
  outstanding      INTEGER NOT NULL DEFAULT 0,
  options          TEXT,
  result           TEXT,
  error            TEXT,
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX runs_ready    ON runs (ready_at)         WHERE ready_at IS NOT NULL;
CREATE INDEX runs_leases   ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX runs_finished ON runs (finished_at)      WHERE finished_at IS NOT NULL;
CREATE INDEX runs_by_workflow ON runs (workflow, seq);
CREATE INDEX runs_by_status   ON runs (status, seq);
CREATE INDEX runs_by_parent   ON runs (parent_id, seq) WHERE parent_id IS NOT NULL;

CREATE TABLE steps (
  run_id      TEXT    NOT NULL,
  key         TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  target      TEXT,
  status      TEXT    NOT NULL,
  value       TEXT,
  error       TEXT,
  child_id    TEXT,
  event       TEXT,
  wake_at     INTEGER,
  attempts    INTEGER NOT NULL DEFAULT 0,
  position    INTEGER NOT NULL,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE INDEX steps_waiting ON steps (event) WHERE status = 'pending' AND event IS NOT NULL;

CREATE TABLE logs (
  seq      INTEGER PRIMARY KEY,
  run_id   TEXT    NOT NULL,
  step_key TEXT,
  attempt  INTEGER NOT NULL,
  level    TEXT    NOT NULL,
  message  TEXT    NOT NULL,
  ts       INTEGER NOT NULL
);
CREATE INDEX logs_by_run ON logs (run_id, seq);

CREATE TABLE workflows (
  name       TEXT PRIMARY KEY,
  version    TEXT,
  queue      TEXT NOT NULL,
  max_attempts INTEGER NOT NULL,
  backoff_base INTEGER NOT NULL,
  backoff_max  INTEGER NOT NULL,
  source     TEXT,
  schedule   TEXT,
  updated_at INTEGER NOT NULL
);

CREATE TABLE bundles (
  hash       TEXT PRIMARY KEY,
  code       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE schedules (
  workflow      TEXT PRIMARY KEY,
  cron          TEXT    NOT NULL,
  timezone      TEXT    NOT NULL,
  next_at       INTEGER,
  paused        INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  updated_at    INTEGER NOT NULL
);
`;
