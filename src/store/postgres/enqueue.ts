/**
 * Creating runs in bulk: one multi-row INSERT (arrays unnested) for every enqueue
 * and child of a batch, `ON CONFLICT DO NOTHING` for ids that already exist, then
 * one read of those to tell a deduplicated repeat from a conflict. A batch of enqueues
 * alone is that INSERT as its own transaction (one statement, one round trip). The `LIMIT` of the
 * arrays' length (every row) makes the plan Postgres keeps for any values expect one run, so a
 * one-run enqueue is not planned again at each execution (`test/postgres/plan-cache.test.ts`).
 */
import type { RunsStatements } from "./db.js";
import { prepared } from "./prepared.js";
import { serializeError } from "../../core/serde.js";
import { RunIdConflictError } from "../../sdk/errors.js";
import { sameJson } from "../sqlite/canonical.js";
import type { CommandResult, EnqueueRequest, EnqueueResult } from "../types.js";
import { leasedRun, type ParentLink } from "../leased-run.js";
import type { LeasedRow } from "./run-records.js";

/** One run to create; `parent` for children of a suspending run. */
export interface NewRun {
  req: EnqueueRequest;
  parent?: ParentLink;
}

/** What became of one {@link NewRun}. */
export type NewRunOutcome = { created: true; result: EnqueueResult } | { created: false; result: CommandResult };

const INSERT = (returning: string) => /* sql */ `
INSERT INTO runs (id, workflow, task, queue, payload, status, priority, ready_at, max_attempts, backoff_base, backoff_max,
  version, parent_id, parent_key, root_id, options, created_by, cache_key, concurrency_key, concurrency_limit,
  concurrency_window_ms, claims, lease_owner, lease_expires_at, lease_ms, started_at, created_at, updated_at)
SELECT u.id, u.workflow, u.task, u.queue, u.payload, CASE WHEN u.take THEN 'running' ELSE 'pending' END, u.priority,
  CASE WHEN u.take THEN NULL ELSE u.run_at END, u.max_attempts, u.backoff_base, u.backoff_max,
  COALESCE(u.version, CASE WHEN u.take THEN (SELECT w.version FROM workflows w WHERE w.name = u.workflow) END),
  u.parent_id, u.parent_key, COALESCE(u.root_id, u.id), u.options, u.created_by, u.cache_key, u.concurrency_key,
  u.concurrency_limit, u.concurrency_window_ms, CASE WHEN u.take THEN 1 ELSE 0 END,
  CASE WHEN u.take THEN u.lease_owner END, CASE WHEN u.take THEN now_ms() + u.lease_ms END, CASE WHEN u.take THEN u.lease_ms END,
  CASE WHEN u.take THEN now_ms() END, now_ms(), now_ms()
FROM (
  SELECT v.*, GREATEST(COALESCE(v.run_at0, now_ms()), 0) AS run_at,
    (v.lease_owner IS NOT NULL AND COALESCE(v.run_at0, now_ms()) <= now_ms()) AS take
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::int[], $9::bigint[],
    $10::bigint[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[],
    $19::int[], $20::bigint[], $21::text[], $22::bigint[])
    AS v(id, workflow, task, queue, payload, priority, run_at0, max_attempts, backoff_base, backoff_max, version, parent_id,
      parent_key, root_id, options, created_by, cache_key, concurrency_key, concurrency_limit, concurrency_window_ms,
      lease_owner, lease_ms)
  LIMIT cardinality($1::text[])
) u
ON CONFLICT (id) DO NOTHING
RETURNING ${returning}`;

/**
 * What tells created from not; when some run is created leased (it is answered as claimed),
 * also what its record needs beyond the request (see `leasedRun`).
 */
const INSERT_LEASED = INSERT("runs.id, runs.claims, runs.seq, runs.version, runs.created_at, runs.lease_expires_at");
const INSERT_NARROW = INSERT("runs.id, runs.claims");

type InsertedRow = { id: string; claims: number } & Partial<LeasedRow>;

/**
 * An INSERT run as its own transaction, which also sends a NOTIFY (`$23` channel, `$24` payload)
 * when `$25` is true and it created a run (Postgres delivers one per transaction).
 */
const ALONE = (insert: string) => `WITH ins AS (${insert})
  SELECT ins.*, CASE WHEN $25::bool THEN pg_notify($23, $24) END AS notified FROM ins`;
const ALONE_LEASED = ALONE(INSERT_LEASED);
const ALONE_NARROW = ALONE(INSERT_NARROW);

/** For a batch of enqueues alone: the INSERT is its own transaction, and whom it wakes. */
export interface Alone {
  channel: string;
  payload: string;
  /** Send the NOTIFY (some run may be waiting for a worker). */
  notify: boolean;
}

/**
 * Inserts `runs`; answers each in order. Existing ids deduplicate when workflow,
 * task and payload match (payloads compared as JSON values), else conflict. With
 * `alone` (`c` then runs each statement as its own transaction, {@link Db.statement}),
 * the INSERT commits by itself and carries the NOTIFY.
 */
export async function insertRuns(
  c: RunsStatements,
  runs: NewRun[],
  audit: boolean,
  alone?: Alone,
): Promise<NewRunOutcome[]> {
  if (runs.length === 0) return [];
  const col = <T>(f: (n: NewRun) => T) => runs.map(f);
  const leased = runs.some((n) => n.req.claimFor);
  const values: unknown[] = [
    col((n) => n.req.id),
    col((n) => n.req.workflow),
    col((n) => n.req.task ?? null),
    col((n) => n.req.queue),
    col((n) => n.req.payload),
    col((n) => n.req.priority ?? 0),
    col((n) => (n.req.runAt === undefined ? null : Math.round(n.req.runAt))),
    col((n) => n.req.maxAttempts),
    col((n) => n.req.backoff.base),
    col((n) => n.req.backoff.max),
    col((n) => n.req.version ?? null),
    col((n) => n.parent?.id ?? null),
    col((n) => n.parent?.key ?? null),
    col((n) => n.parent?.rootId ?? null),
    col((n) => n.req.options ?? null),
    col((n) => n.req.createdBy ?? null),
    col((n) => n.req.cacheKey ?? null),
    col((n) => n.req.concurrency?.key ?? null),
    col((n) => n.req.concurrency?.limit ?? null),
    col((n) => n.req.concurrency?.windowMs ?? null),
    col((n) => n.req.claimFor?.workerId ?? null),
    col((n) => n.req.claimFor?.leaseMs ?? null),
  ];
  const { rows } = await c.query<InsertedRow>(
    alone
      ? prepared(leased ? ALONE_LEASED : ALONE_NARROW, [...values, alone.channel, alone.payload, alone.notify])
      : prepared(leased ? INSERT_LEASED : INSERT_NARROW, values),
  );
  const inserted = new Map(rows.map((r) => [r.id, r]));
  const missing = runs.filter((n) => !inserted.has(n.req.id)).map((n) => n.req.id);
  const existing = new Map<string, { workflow: string; task: string | null; payload: string | null }>();
  if (missing.length) {
    const found = await c.query<{ id: string; workflow: string; task: string | null; payload: string | null }>({
      text: "SELECT id, workflow, task, payload FROM runs WHERE id = ANY($1::text[])",
      values: [missing],
    });
    for (const r of found.rows) existing.set(r.id, r);
  }
  const claimedRuns = runs.filter((n) => inserted.get(n.req.id)?.claims === 1);
  if (audit && claimedRuns.length) {
    await c.query({
      text: "INSERT INTO claim_log (run_id, token, worker, claimed_at) SELECT u.id, 1, u.w, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM unnest($1::text[], $2::text[]) u(id, w)",
      values: [claimedRuns.map((n) => n.req.id), claimedRuns.map((n) => n.req.claimFor!.workerId)],
    });
  }
  return runs.map((n): NewRunOutcome => {
    const row = inserted.get(n.req.id);
    if (row) {
      const result: EnqueueResult = { id: n.req.id, deduplicated: false };
      // Only a run created leased has claims = 1 (and then the leased statement's columns).
      if (row.claims === 1) {
        const leased = row as InsertedRow & LeasedRow;
        const run = leasedRun(n.req, n.parent, {
          seq: leased.seq,
          version: leased.version,
          createdAt: leased.created_at,
          leaseExpiresAt: leased.lease_expires_at,
        });
        result.claimed = { run, token: 1, steps: [], claimedAt: run.createdAt, dueAt: run.createdAt };
      }
      return { created: true, result };
    }
    const ex = existing.get(n.req.id);
    if (!ex)
      return { created: false, result: { ok: false, error: conflict(n.req.id, "an id that could not be inserted") } };
    if (ex.workflow !== n.req.workflow || (ex.task ?? null) !== (n.req.task ?? null)) {
      return {
        created: false,
        result: { ok: false, error: conflict(n.req.id, `workflow ${JSON.stringify(ex.task ?? ex.workflow)}`) },
      };
    }
    if (!sameJson(ex.payload, n.req.payload))
      return { created: false, result: { ok: false, error: conflict(n.req.id, "a different payload") } };
    return { created: false, result: { ok: true, enqueued: { id: n.req.id, deduplicated: true } } };
  });
}

function conflict(runId: string, detail: string) {
  const { stack: _stack, ...rest } = serializeError(new RunIdConflictError(runId, detail));
  return rest;
}
