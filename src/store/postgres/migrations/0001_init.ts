/**
 * Migration 1: the whole schema of the SQLite store at its migration 2, in Postgres
 * types, plus the database clock (`now_ms()`), the claim audit and the leader table.
 * Times are epoch milliseconds (`bigint`) on the database clock.
 */
export const sql = /* sql */ `
CREATE FUNCTION now_ms() RETURNS bigint LANGUAGE sql STABLE
  AS $$ SELECT floor(extract(epoch FROM now()) * 1000)::bigint $$;

CREATE TABLE runs (
  seq                   bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id                    text    NOT NULL UNIQUE,
  workflow              text    NOT NULL,
  task                  text,
  queue                 text    NOT NULL,
  payload               text,
  status                text    NOT NULL CHECK (status IN ('pending', 'running', 'waiting', 'succeeded', 'failed', 'cancelled')),
  priority              integer NOT NULL DEFAULT 0,
  ready_at              bigint,
  attempt               integer NOT NULL DEFAULT 1,
  max_attempts          integer NOT NULL,
  backoff_base          bigint  NOT NULL,
  backoff_max           bigint  NOT NULL,
  claims                integer NOT NULL DEFAULT 0,
  lease_owner           text,
  lease_expires_at      bigint,
  version               text,
  parent_id             text,
  parent_key            text,
  root_id               text    NOT NULL,
  outstanding           integer NOT NULL DEFAULT 0,
  options               text,
  result                text,
  error                 text,
  created_by            text,
  cache_key             text,
  concurrency_key       text,
  concurrency_limit     integer,
  concurrency_window_ms bigint,
  created_at            bigint  NOT NULL,
  started_at            bigint,
  finished_at           bigint,
  updated_at            bigint  NOT NULL
) WITH (fillfactor = 85);
CREATE INDEX runs_ready       ON runs (ready_at)         WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting');
CREATE INDEX runs_leases      ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX runs_finished    ON runs (finished_at)      WHERE finished_at IS NOT NULL;
CREATE INDEX runs_by_workflow ON runs (workflow, seq);
CREATE INDEX runs_by_status   ON runs (status, seq);
CREATE INDEX runs_by_parent   ON runs (parent_id, seq)   WHERE parent_id IS NOT NULL;
CREATE INDEX runs_cache       ON runs (cache_key, finished_at) WHERE cache_key IS NOT NULL AND status = 'succeeded';
CREATE INDEX runs_concurrency ON runs (concurrency_key, started_at) WHERE concurrency_key IS NOT NULL;

CREATE TABLE steps (
  run_id      text    NOT NULL,
  key         text    NOT NULL,
  kind        text    NOT NULL,
  target      text,
  status      text    NOT NULL,
  value       text,
  error       text,
  child_id    text,
  event       text,
  wake_at     bigint,
  attempts    integer NOT NULL DEFAULT 0,
  position    integer NOT NULL,
  started_at  bigint  NOT NULL,
  finished_at bigint,
  PRIMARY KEY (run_id, key)
);
CREATE INDEX steps_waiting ON steps (event) WHERE status = 'pending' AND event IS NOT NULL;

CREATE TABLE logs (
  seq      bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id   text    NOT NULL,
  step_key text,
  attempt  integer NOT NULL,
  level    text    NOT NULL,
  message  text    NOT NULL,
  ts       bigint  NOT NULL
);
CREATE INDEX logs_by_run ON logs (run_id, seq);

CREATE TABLE workflows (
  name         text PRIMARY KEY,
  version      text,
  queue        text    NOT NULL,
  max_attempts integer NOT NULL,
  backoff_base bigint  NOT NULL,
  backoff_max  bigint  NOT NULL,
  source       text,
  schedule     text,
  updated_at   bigint  NOT NULL
);

CREATE TABLE bundles (
  hash       text PRIMARY KEY,
  code       text   NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE schedules (
  workflow      text PRIMARY KEY,
  cron          text    NOT NULL,
  timezone      text    NOT NULL,
  next_at       bigint,
  paused        boolean NOT NULL DEFAULT false,
  last_fired_at bigint,
  updated_at    bigint  NOT NULL
);

CREATE TABLE meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE approval_events (
  seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id   text   NOT NULL,
  step_key text   NOT NULL,
  actor    text,
  decision text   NOT NULL,
  outcome  text   NOT NULL,
  via      text,
  ts       bigint NOT NULL
);
CREATE INDEX approval_events_by_run ON approval_events (run_id, seq);

-- One row per claim when the store runs with auditClaims: who held the run, from when to when.
CREATE TABLE claim_log (
  run_id      text    NOT NULL,
  token       integer NOT NULL,
  worker      text    NOT NULL,
  claimed_at  bigint  NOT NULL,
  released_at bigint,
  released_by text,
  PRIMARY KEY (run_id, token)
);

-- Who holds each leadership (informational: the advisory lock is what decides).
CREATE TABLE leaders (
  name   text PRIMARY KEY,
  holder text   NOT NULL,
  since  bigint NOT NULL,
  seen   bigint NOT NULL
);
`;
