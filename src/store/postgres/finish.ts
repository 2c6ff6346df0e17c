/**
 * Ending runs in bulk: retries go back to `pending`; terminal outcomes set the
 * run's result or error and resolve the parent's pending step. The step's
 * pending→done update is conditional, and the parent's `outstanding` drops by the
 * number of steps that update changed, so each child counts exactly once.
 */
import type pg from "pg";
import { prepared } from "./prepared.js";
import type { SerializedError } from "../../core/serde.js";
import { cancelledError } from "../run-errors.js";
import type { RunOutcome, RunRecord } from "../types.js";
import { type RunRow, toRun } from "./rows.js";

/** A run to move to a terminal status. */
export interface Finish {
  runId: string;
  parentId: string | null;
  parentKey: string | null;
  outcome: Exclude<RunOutcome, { status: "retry" }>;
}

/** A claimed run to send back for another attempt. */
export interface Retry {
  runId: string;
  error: SerializedError;
  delayMs: number;
}

/** The stored error text of a terminal outcome. */
function outcomeError(outcome: Finish["outcome"]): string | null {
  if (outcome.status === "failed") return JSON.stringify(outcome.error);
  if (outcome.status === "cancelled") {
    return JSON.stringify(cancelledError(outcome.reason));
  }
  return null;
}

/** Re-queues claimed runs after `delayMs`, one attempt later. */
export async function retryRuns(c: pg.ClientBase, retries: Retry[]): Promise<void> {
  if (retries.length === 0) return;
  await c.query(
    `UPDATE runs r SET status = 'pending', attempt = r.attempt + 1, ready_at = now_ms() + u.delay, error = u.error,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = now_ms()
     FROM unnest($1::text[], $2::bigint[], $3::text[]) u(id, delay, error) WHERE r.id = u.id`,
    [
      retries.map((r) => r.runId),
      retries.map((r) => Math.max(0, Math.round(r.delayMs))),
      retries.map((r) => JSON.stringify(r.error)),
    ],
  );
}

/** Moves runs to their terminal status and resolves their parents' steps; returns the finished runs by id. */
export async function finishRuns(c: pg.ClientBase, finishes: Finish[]): Promise<Map<string, RunRecord>> {
  if (finishes.length === 0) return new Map();
  const results = finishes.map((f) => (f.outcome.status === "succeeded" ? f.outcome.result : null));
  const errors = finishes.map((f) => outcomeError(f.outcome));
  const { rows } = await c.query<RunRow>(
    prepared(
      `UPDATE runs r SET status = u.status, result = u.result, error = u.error, finished_at = now_ms(), updated_at = now_ms(),
       ready_at = NULL, lease_owner = NULL, lease_expires_at = NULL
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) u(id, status, result, error) WHERE r.id = u.id
     RETURNING r.*`,
      [finishes.map((f) => f.runId), finishes.map((f) => f.outcome.status), results, errors],
    ),
  );
  const finished = new Map(rows.map((r) => [r.id, toRun(r)]));
  const children = finishes.map((f, i) => ({ f, i })).filter(({ f }) => f.parentId !== null && f.parentKey !== null);
  if (children.length === 0) return finished;
  await resolveParents(
    c,
    children.map(({ f }) => f.parentId!),
    children.map(({ f }) => f.parentKey!),
    children.map(({ i }) => results[i]!),
    children.map(({ i }) => (finishes[i]!.outcome.status === "succeeded" ? null : errors[i]!)),
  );
  return finished;
}

/** A claimed run to move to a terminal status if its claim is still the current one. */
export interface LeasedFinish {
  runId: string;
  token: number;
  outcome: Exclude<RunOutcome, { status: "retry" }>;
}

/**
 * Ends runs whose claim is still current, fencing in the same statement: the UPDATE
 * changes (and locks) only rows still `running` under the given claim, so a run
 * reclaimed meanwhile is left alone and missing from the answer. Saves the separate
 * locking read of a batch made of completions only. Returns the finished runs by id.
 */
export async function finishLeased(c: pg.ClientBase, finishes: LeasedFinish[]): Promise<Map<string, RunRecord>> {
  if (finishes.length === 0) return new Map();
  // Rows are taken in id order, as the locking read would take them.
  const sorted = [...finishes].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const results = sorted.map((f) => (f.outcome.status === "succeeded" ? f.outcome.result : null));
  const errors = sorted.map((f) => outcomeError(f.outcome));
  const { rows } = await c.query<RunRow>(
    prepared(
      `UPDATE runs r SET status = u.status, result = u.result, error = u.error, finished_at = now_ms(), updated_at = now_ms(),
       ready_at = NULL, lease_owner = NULL, lease_expires_at = NULL
     FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) u(id, token, status, result, error)
     WHERE r.id = u.id AND r.status = 'running' AND r.claims = u.token
     RETURNING r.*`,
      [sorted.map((f) => f.runId), sorted.map((f) => f.token), sorted.map((f) => f.outcome.status), results, errors],
    ),
  );
  const finished = new Map(rows.map((r) => [r.id, toRun(r)]));
  const index = new Map(sorted.map((f, i) => [f.runId, i]));
  const children = rows.filter((r) => r.parent_id !== null && r.parent_key !== null);
  if (children.length) {
    await resolveParents(
      c,
      children.map((r) => r.parent_id!),
      children.map((r) => r.parent_key!),
      children.map((r) => results[index.get(r.id)!]!),
      children.map((r) =>
        sorted[index.get(r.id)!]!.outcome.status === "succeeded" ? null : errors[index.get(r.id)!]!,
      ),
    );
  }
  return finished;
}

/**
 * Resolves parents' pending steps for finished children and re-queues parents with
 * nothing left outstanding. Parent rows are locked in id order first, so two
 * transactions finishing siblings queue up instead of deadlocking.
 */
async function resolveParents(
  c: pg.ClientBase,
  parents: string[],
  keys: string[],
  values: (string | null)[],
  errors: (string | null)[],
): Promise<void> {
  await c.query("SELECT 1 FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE", [[...new Set(parents)]]);
  await c.query(
    `WITH resolved AS (
       UPDATE steps s SET status = CASE WHEN u.error IS NULL THEN 'done' ELSE 'error' END, value = u.value, error = u.error,
         finished_at = now_ms()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) u(parent, key, value, error)
       WHERE s.run_id = u.parent AND s.key = u.key AND s.status = 'pending'
       RETURNING s.run_id
     ), counts AS (SELECT run_id, count(*)::int AS n FROM resolved GROUP BY run_id)
     UPDATE runs p SET outstanding = p.outstanding - counts.n,
       ready_at = CASE WHEN p.outstanding - counts.n <= 0 AND p.status = 'waiting' THEN now_ms() ELSE p.ready_at END,
       status   = CASE WHEN p.outstanding - counts.n <= 0 AND p.status = 'waiting' THEN 'pending' ELSE p.status END,
       updated_at = now_ms()
     FROM counts WHERE p.id = counts.run_id`,
    [parents, keys, values, errors],
  );
}
