/**
 * Verbs outside the group commit: signals, approval decisions, cancel, manual
 * retry and lease reclaim. Each runs in its own transaction (the caller's client).
 */
import type pg from "pg";
import type { SerializedError } from "../../core/serde.js";
import type { Lease, ResolveWaitOutcome, ResolveWaitRequest, RetryDelay, RunStatus, SignalOutcome } from "../types.js";
import { cancelledError, PARENT_CANCELLED, reclaimError, releaseOf } from "../run-errors.js";
import { isTerminal } from "../types.js";
import { waitOutcome } from "../wait-outcome.js";
import { releaseClaims } from "./commit.js";
import { lockSignalEvents } from "./signal-lock.js";
import { finishRuns } from "./finish.js";

/**
 * Resolves every pending wait on `event` of a waiting run; with `bufferMs`, a signal that woke
 * none is kept for the next park (see `Store.signal`).
 */
export async function signalRuns(
  c: pg.ClientBase,
  event: string,
  payload: string | null,
  bufferMs?: number,
): Promise<SignalOutcome> {
  const buffer = bufferMs !== undefined && bufferMs > 0;
  if (buffer) await lockSignalEvents(c, [event]);
  const { rows } = await c.query(
    `WITH w AS (
       SELECT s.run_id, s.key FROM steps s JOIN runs r ON r.id = s.run_id
       WHERE s.event = $1 AND s.status = 'pending' AND s.kind = 'wait' AND r.status = 'waiting'
       FOR UPDATE OF r
     ), resolved AS (
       UPDATE steps s SET status = 'done', value = $2, finished_at = now_ms() FROM w
       WHERE s.run_id = w.run_id AND s.key = w.key RETURNING s.run_id
     )
     UPDATE runs SET status = 'pending', ready_at = now_ms(), updated_at = now_ms()
     WHERE id IN (SELECT run_id FROM resolved) AND status = 'waiting' RETURNING id`,
    [event, payload],
  );
  if (rows.length > 0 || !buffer) return { woken: rows.length, buffered: false };
  await c.query("DELETE FROM signal_buffer WHERE event = $1 AND expires_at <= now_ms()", [event]);
  await c.query(
    "INSERT INTO signal_buffer (event, payload, created_at, expires_at) VALUES ($1, $2, now_ms(), now_ms() + $3)",
    [event, payload, Math.round(bufferMs)],
  );
  return { woken: 0, buffered: true };
}

/** See `Store.resolveWait`. */
export async function resolveWait(c: pg.ClientBase, req: ResolveWaitRequest): Promise<ResolveWaitOutcome> {
  const outcome = await decide(c, req);
  if (req.audit) {
    await c.query(
      "INSERT INTO approval_events (run_id, step_key, actor, decision, outcome, via, ts) VALUES ($1, $2, $3, $4, $5, $6, now_ms())",
      [req.runId, req.key, req.audit.actor, req.audit.decision, outcome, req.audit.via],
    );
  }
  return outcome;
}

async function decide(c: pg.ClientBase, req: ResolveWaitRequest): Promise<ResolveWaitOutcome> {
  const run = await c.query<{ status: RunStatus; created_by: string | null; now: number }>(
    "SELECT status, created_by, now_ms() AS now FROM runs WHERE id = $1 FOR UPDATE",
    [req.runId],
  );
  const r = run.rows[0];
  if (!r) return "not-found";
  const step = await c.query<{ kind: string; status: string; wake_at: number | null; finished_at: number | null }>(
    "SELECT kind, status, wake_at, finished_at FROM steps WHERE run_id = $1 AND key = $2",
    [req.runId, req.key],
  );
  const st = step.rows[0];
  const facts = {
    run: { status: r.status, createdBy: r.created_by },
    step: st
      ? {
          kind: st.kind,
          status: st.status,
          wakeAt: st.wake_at === null ? null : Number(st.wake_at),
          finishedAt: st.finished_at === null ? null : Number(st.finished_at),
        }
      : null,
  };
  const outcome = waitOutcome(facts, req, Number(r.now));
  if (outcome !== "resolved") return outcome;
  await c.query("UPDATE steps SET status = 'done', value = $1, finished_at = now_ms() WHERE run_id = $2 AND key = $3", [
    req.value,
    req.runId,
    req.key,
  ]);
  await c.query("UPDATE runs SET status = 'pending', ready_at = now_ms(), updated_at = now_ms() WHERE id = $1", [
    req.runId,
  ]);
  return "resolved";
}

/** Cancels a run and its unfinished descendants; returns the status afterwards, null if missing. */
export async function cancelRun(
  c: pg.ClientBase,
  runId: string,
  reason: string | null,
  audit: boolean,
): Promise<RunStatus | null> {
  const { rows } = await c.query<{
    status: RunStatus;
    parent_id: string | null;
    parent_key: string | null;
    claims: number;
  }>("SELECT status, parent_id, parent_key, claims FROM runs WHERE id = $1 FOR UPDATE", [runId]);
  const row = rows[0];
  if (!row) return null;
  if (isTerminal(row.status)) return row.status;
  await finishRuns(c, [{ runId, outcome: { status: "cancelled", reason } }]);
  const error = JSON.stringify(cancelledError(PARENT_CANCELLED));
  const { rows: kids } = await c.query<{ id: string; claims: number }>(
    `WITH RECURSIVE d(id) AS (SELECT id FROM runs WHERE parent_id = $1 UNION ALL SELECT r.id FROM runs r JOIN d ON r.parent_id = d.id)
     UPDATE runs SET status = 'cancelled', error = $2, finished_at = now_ms(), updated_at = now_ms(), ready_at = NULL,
       lease_owner = NULL, lease_expires_at = NULL
     WHERE id IN (SELECT id FROM d) AND status NOT IN ('succeeded', 'failed', 'cancelled') RETURNING id, claims`,
    [runId, error],
  );
  if (audit) {
    const leases: Lease[] = [{ runId, token: row.claims }, ...kids.map((k) => ({ runId: k.id, token: k.claims }))];
    await releaseClaims(c, leases, "cancelled");
  }
  return "cancelled";
}

/** Gives a failed or cancelled run another attempt now; returns the status afterwards, null if missing. */
export async function retryRun(c: pg.ClientBase, runId: string): Promise<RunStatus | null> {
  const { rows } = await c.query<{ status: RunStatus }>(
    `UPDATE runs SET status = 'pending', attempt = attempt + 1, max_attempts = GREATEST(max_attempts, attempt + 1), ready_at = now_ms(),
       finished_at = NULL, result = NULL, updated_at = now_ms()
     WHERE id = $1 AND status IN ('failed', 'cancelled') RETURNING status`,
    [runId],
  );
  if (rows[0]) return rows[0].status;
  const cur = await c.query<{ status: RunStatus }>("SELECT status FROM runs WHERE id = $1", [runId]);
  return cur.rows[0]?.status ?? null;
}

/** Ends expired leases (skipping rows another process is handling); returns the ids handled. */
export async function reclaimExpired(
  c: pg.ClientBase,
  limit: number,
  retryDelayMs: RetryDelay,
  audit: boolean,
): Promise<string[]> {
  const { rows } = await c.query<{
    id: string;
    attempt: number;
    max_attempts: number;
    parent_id: string | null;
    parent_key: string | null;
    claims: number;
    lease_ms: string | number | null;
    backoff_base: string | number;
    backoff_max: string | number;
  }>(
    `SELECT id, attempt, max_attempts, parent_id, parent_key, claims, lease_ms, backoff_base, backoff_max FROM runs
     WHERE status = 'running' AND lease_expires_at < now_ms() ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  if (rows.length === 0) return [];
  // Expired, or released by its worker (a release mark in lease_ms): one rule, store/run-errors.ts.
  const errors = new Map<string, SerializedError>(
    rows.map((r) => [
      r.id,
      reclaimError(
        { attempt: r.attempt, maxAttempts: r.max_attempts },
        r.lease_ms === null ? null : Number(r.lease_ms),
      ),
    ]),
  );
  const errorOf = (r: { id: string }): SerializedError => errors.get(r.id)!;
  const again = rows.filter((r) => r.attempt < r.max_attempts);
  const last = rows.filter((r) => r.attempt >= r.max_attempts);
  if (again.length) {
    await c.query(
      `UPDATE runs r SET status = 'pending', attempt = r.attempt + 1, ready_at = now_ms() + u.delay, error = u.error,
         lease_owner = NULL, lease_expires_at = NULL, updated_at = now_ms()
       FROM unnest($1::text[], $2::bigint[], $3::text[]) u(id, delay, error) WHERE r.id = u.id`,
      [
        again.map((r) => r.id),
        again.map((r) =>
          Math.max(
            0,
            Math.round(retryDelayMs(r.attempt, { base: Number(r.backoff_base), max: Number(r.backoff_max) })),
          ),
        ),
        again.map((r) => JSON.stringify(errorOf(r))),
      ],
    );
  }
  await finishRuns(
    c,
    last.map((r) => ({ runId: r.id, outcome: { status: "failed" as const, error: errorOf(r) } })),
  );
  if (audit) {
    // claim_log says how each claim ended: `released` by its worker, or `expired`.
    const how = (r: { id: string }) => (releaseOf(errorOf(r)) ? "released" : "expired");
    for (const kind of ["expired", "released"])
      await releaseClaims(
        c,
        rows.filter((r) => how(r) === kind).map((r) => ({ runId: r.id, token: r.claims })),
        kind,
      );
  }
  return rows.map((r) => r.id);
}
