/**
 * Ending runs in bulk: retries go back to `pending`; terminal outcomes set the
 * run's result or error and resolve the parent's pending step. The step's
 * pending→done update is conditional, and the parent's `outstanding` drops by the
 * number of steps that update changed, so each child counts exactly once.
 */
import type pg from "pg";
import { type Db, sendWithBehind } from "./db.js";
import { prepared } from "./prepared.js";
import type { SerializedError } from "../../core/serde.js";
import { cancelledError } from "../run-errors.js";
import type { Command, CommandResult, RunOutcome, RunRecord } from "../types.js";
import { type RunRow, toRun } from "./rows.js";
import { finishedRun } from "./run-records.js";

/**
 * A run to move to a terminal status. With `token`, only if that claim is still the
 * current one: the UPDATE itself fences (it changes and locks only rows still `running`
 * under the claim), so no separate locking read is needed.
 */
export interface Finish {
  runId: string;
  token?: number;
  outcome: Exclude<RunOutcome, { status: "retry" }>;
  /** The run as the claim returned it (with `token`): then only what changed is read back. */
  claimed?: RunRecord;
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

/**
 * `finishes` in id order (rows are taken in that order, as a locking read would take them),
 * with their results and errors as stored: the finishing UPDATE's parameters ({@link FINISH_FROM}).
 */
function finishParams(finishes: readonly Finish[]): {
  sorted: Finish[];
  results: (string | null)[];
  errors: (string | null)[];
  params: unknown[];
} {
  const sorted = [...finishes].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const results = sorted.map((f) => (f.outcome.status === "succeeded" ? f.outcome.result : null));
  const errors = sorted.map((f) => outcomeError(f.outcome));
  const params = [
    sorted.map((f) => f.runId),
    sorted.map((f) => f.token ?? 0),
    sorted.map((f) => f.outcome.status),
    results,
    errors,
  ];
  return { sorted, results, errors, params };
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

/** The finishing UPDATE's SET: a terminal status, its result or error, and no lease or readiness left. */
export const FINISH_SET = `status = u.status, result = u.result, error = u.error, finished_at = now_ms(), updated_at = now_ms(),
       ready_at = NULL, lease_owner = NULL, lease_expires_at = NULL`;
/**
 * The finishing UPDATE's rows, `u`: parameters `first` to `first + 4`, as {@link finishParams}
 * gives them; with `lease` (an `int[]` parameter, e.g. `$24`), also `u.lease`, each outcome's
 * lease position (`lease-fence.ts`).
 */
export function finishFrom(first = 1, lease = ""): string {
  const [id, token, status, result, error] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
  return `unnest(${id}::text[], ${token}::int[], ${status}::text[], ${result}::text[], ${error}::text[]${lease && `, ${lease}::int[]`})
    u(id, token, status, result, error${lease && ", lease"})`;
}
const FINISH_FROM = finishFrom();
const FINISH = `UPDATE runs r SET ${FINISH_SET} FROM ${FINISH_FROM} WHERE r.id = u.id RETURNING r.*`;
/** The finishing UPDATE's fence: only a run still `running` under the claim that sends its outcome. */
const FENCE = "r.id = u.id AND r.status = 'running' AND r.claims = u.token";
const FINISH_FENCED = `UPDATE runs r SET ${FINISH_SET} FROM ${FINISH_FROM} WHERE ${FENCE} RETURNING r.*`;
/** Fenced, for runs whose claimed record the caller holds: only what it does not know comes back. */
const FINISH_FENCED_NARROW = `UPDATE runs r SET ${FINISH_SET} FROM ${FINISH_FROM} WHERE ${FENCE}
     RETURNING r.id, r.outstanding, r.finished_at, r.parent_id, r.parent_key`;

/** What a finishing UPDATE returns: whole rows, or the narrow columns of {@link FINISH_FENCED_NARROW}. */
type FinishedRow = Pick<RunRow, "id" | "outstanding" | "finished_at" | "parent_id" | "parent_key"> & Partial<RunRow>;

/**
 * Statements sent right behind the finishing UPDATE without waiting for its answer (the
 * group commit's claims): `start` issues them; `parentsChanged` is called, after they
 * completed, when the finish went on to resolve parents' steps (which may re-queue runs
 * the follower could not see).
 */
export interface FinishFollower {
  start(): Promise<unknown>;
  parentsChanged(): void;
}

/**
 * Moves runs to their terminal status and resolves their parents' steps; returns the
 * finished runs by id. When every finish carries a `token` the UPDATE fences (a run
 * reclaimed meanwhile is left alone and missing from the answer); otherwise the caller
 * has locked and checked the rows.
 */
export async function finishRuns(
  c: pg.ClientBase,
  finishes: Finish[],
  behind?: FinishFollower,
): Promise<Map<string, RunRecord>> {
  if (finishes.length === 0) return new Map();
  const fenced = finishes.every((f) => f.token !== undefined);
  const narrow = fenced && finishes.every((f) => f.claimed?.id === f.runId);
  const { sorted, results, errors, params } = finishParams(finishes);
  // The follower's statements go out right behind the UPDATE, in the same round trip.
  const [{ rows }, following] = await sendWithBehind(
    c,
    () => c.query<FinishedRow>(prepared(narrow ? FINISH_FENCED_NARROW : fenced ? FINISH_FENCED : FINISH, params)),
    behind && (() => behind.start()),
  );
  await following;
  const index = new Map(sorted.map((f, i) => [f.runId, i]));
  const finished = new Map(
    rows.map((r) => {
      const i = index.get(r.id)!;
      const f = sorted[i]!;
      return [
        r.id,
        narrow
          ? finishedRun(f.claimed!, f.outcome.status, results[i] ?? null, errors[i] ?? null, {
              outstanding: r.outstanding,
              finished_at: r.finished_at!,
            })
          : toRun(r as RunRow),
      ];
    }),
  );
  const children = rows.filter((r) => r.parent_id !== null && r.parent_key !== null);
  if (children.length === 0) return finished;
  behind?.parentsChanged();
  await resolveParents(
    c,
    children.map((r) => r.parent_id!),
    children.map((r) => r.parent_key!),
    children.map((r) => results[index.get(r.id)!]!),
    children.map((r) => {
      const i = index.get(r.id)!;
      return sorted[i]!.outcome.status === "succeeded" ? null : errors[i]!;
    }),
  );
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

type Completion = Extract<Command, { verb: "complete" }>;

/**
 * Whether `cmd` is a final outcome (`complete`, not a retry) that needs no statement after its
 * finishing UPDATE: it carries its claimed record, of a run without a parent (no step to resolve).
 */
export function isLoneEnd(cmd: Command): cmd is Completion {
  return (
    cmd.verb === "complete" &&
    cmd.outcome.status !== "retry" &&
    cmd.claimed?.id === cmd.lease.runId &&
    cmd.claimed.parentId === null
  );
}

/**
 * The commands of a batch of final outcomes alone (`complete`, not a retry, of distinct
 * runs), each carrying its claimed record of a run without a parent; null for any other
 * batch. Nothing in such a batch needs a statement after the finishing UPDATE.
 */
export function completionsAlone(commands: Command[]): Completion[] | null {
  const ends: Completion[] = [];
  const ids = new Set<string>();
  for (const cmd of commands) {
    if (!isLoneEnd(cmd) || ids.has(cmd.lease.runId)) return null;
    ids.add(cmd.lease.runId);
    ends.push(cmd);
  }
  return ends;
}

/** {@link FINISH_FENCED_NARROW} as its own transaction, with the NOTIFY (`$6` channel, `$7` payload) when a run ended. */
export const FINISH_ALONE = `WITH f AS (UPDATE runs r SET ${FINISH_SET} FROM ${FINISH_FROM} WHERE ${FENCE}
     RETURNING r.id, r.outstanding, r.finished_at)
  SELECT f.id, f.outstanding, f.finished_at, pg_notify($6, $7) AS notified FROM f`;

/** {@link finishParams} of a batch of {@link completionsAlone}. */
export function completionParams(ends: Completion[]): ReturnType<typeof finishParams> {
  return finishParams(
    ends.map((cmd) => ({
      runId: cmd.lease.runId,
      token: cmd.lease.token,
      outcome: cmd.outcome as Finish["outcome"],
      claimed: cmd.claimed!,
    })),
  );
}

/** The answers to `ends` from the rows {@link FINISH_ALONE} returned: a run missing from them was fenced. */
export function finishedRuns(
  ends: Completion[],
  { sorted, results, errors }: ReturnType<typeof finishParams>,
  rows: ReadonlyArray<{ id: string; outstanding: number; finished_at: number }>,
): CommandResult[] {
  const index = new Map(sorted.map((f, i) => [f.runId, i]));
  const finished = new Map(
    rows.map((r) => {
      const i = index.get(r.id)!;
      const f = sorted[i]!;
      return [r.id, finishedRun(f.claimed!, f.outcome.status, results[i] ?? null, errors[i] ?? null, r)];
    }),
  );
  return ends.map((cmd): CommandResult => {
    const run = finished.get(cmd.lease.runId);
    return run ? { ok: true, finished: run } : { ok: false, fenced: true };
  });
}

/**
 * Applies {@link completionsAlone}: one fenced UPDATE run as its own transaction (Postgres
 * commits it before answering: no BEGIN or COMMIT statement, one round trip), which also sends
 * `notify` (channel and payload) when it ended a run (Postgres delivers one per transaction).
 * A stale claim's run is left alone and answered `fenced`.
 */
export async function applyCompletions(
  db: Db,
  ends: Completion[],
  notify: { channel: string; payload: string },
): Promise<CommandResult[]> {
  const finish = completionParams(ends);
  const { rows } = await db.statement<{ id: string; outstanding: number; finished_at: number }>(
    prepared(FINISH_ALONE, [...finish.params, notify.channel, notify.payload]),
  );
  return finishedRuns(ends, finish, rows);
}
