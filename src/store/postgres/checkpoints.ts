/**
 * Checkpoints on Postgres: the steps' upsert (many runs' steps in one multi-row statement),
 * fenced in the statement itself or behind a locking read the caller made, and a batch of
 * checkpoints alone applied as one statement, its own transaction.
 */
import type { Db, RunsStatements } from "./db.js";
import { leasePositions, LEASES_LOCKED, liveAt } from "./lease-fence.js";
import { prepared } from "./prepared.js";
import type { Command, CommandResult, Lease, StepWrite } from "../types.js";

/**
 * The steps' upsert, reading `u` (the unnested writes, parameters 1 to 13), filtered by
 * `filter`; with `lease` (an `int[]` parameter, e.g. `$16`), `u.lease` is each write's lease
 * position (`lease-fence.ts`).
 */
export const UPSERT_STEPS = (
  filter: string,
  lease = "",
) => `INSERT INTO steps (run_id, key, kind, target, status, value, error, child_id, event, wake_at, attempts, position, started_at, finished_at)
     SELECT u.run_id, u.key, u.kind, u.target, u.status, u.value, u.error, u.child_id, u.event,
       CASE WHEN u.wake IS NULL THEN NULL ELSE now_ms() + u.wake END, u.attempts, u.position, LEAST(COALESCE(u.started, now_ms()), now_ms()),
       CASE WHEN u.status = 'pending' THEN NULL ELSE now_ms() END
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
       $10::bigint[], $11::int[], $12::int[], $13::bigint[]${lease && `, ${lease}::int[]`})
       u(run_id, key, kind, target, status, value, error, child_id, event, wake, attempts, position, started${lease && ", lease"})
     ${filter}
     ON CONFLICT (run_id, key) DO UPDATE SET kind = excluded.kind, target = excluded.target, status = excluded.status,
       value = excluded.value, error = excluded.error, child_id = excluded.child_id, event = excluded.event,
       wake_at = COALESCE(excluded.wake_at, steps.wake_at), attempts = excluded.attempts, finished_at = excluded.finished_at`;

/**
 * The upsert fenced in the same statement: the leases (`$14` run ids, `$15` tokens) still
 * current are locked in id order, as a locking read would take them, only their runs' steps
 * are written (`$16`: each write's lease position), and their ids come back.
 */
const FENCED_UPSERT_STEPS = `WITH ${LEASES_LOCKED},
  w AS (${UPSERT_STEPS(`WHERE ${liveAt("u.lease")}`, "$16")})
  SELECT f.id FROM f WHERE f.live`;

/**
 * Inserts or replaces checkpoints (a key written twice in one command keeps its last write).
 * With `fence`, only the steps of runs whose lease is still current are written, and the ids of
 * those runs are returned; without, the caller has locked and checked the runs.
 */
export async function upsertSteps(
  c: RunsStatements,
  writes: Array<{ runId: string; steps: StepWrite[] }>,
  fence: Lease[] | null,
): Promise<Set<string> | null> {
  const values = stepColumns(writes);
  if (fence ? fence.length === 0 : values[0]!.length === 0) return fence && new Set();
  if (!fence) {
    await c.query(prepared(UPSERT_STEPS(""), values));
    return null;
  }
  const { rows } = await c.query<{ id: string }>(
    prepared(FENCED_UPSERT_STEPS, [
      ...values,
      fence.map((l) => l.runId),
      fence.map((l) => l.token),
      leasePositions(fence, values[0]!),
    ]),
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The 13 columns of {@link UPSERT_STEPS} (`$1` to `$13`), filled in one pass over the writes (a
 * burst checkpoints thousands at once); a key written twice for one run keeps its last write.
 */
export function stepColumns(writes: ReadonlyArray<{ runId: string; steps: readonly StepWrite[] }>): unknown[][] {
  const byKey = new Map<string, { runId: string; st: StepWrite }>();
  for (const w of writes) for (const st of w.steps) byKey.set(`${w.runId}\u0000${st.key}`, { runId: w.runId, st });
  const values: unknown[][] = Array.from({ length: 13 }, () => new Array<unknown>(byKey.size));
  let i = 0;
  for (const { runId, st } of byKey.values()) {
    values[0]![i] = runId;
    values[1]![i] = st.key;
    values[2]![i] = st.kind;
    values[3]![i] = st.target;
    values[4]![i] = st.status;
    values[5]![i] = st.value ?? null;
    values[6]![i] = st.error ? JSON.stringify(st.error) : null;
    values[7]![i] = st.childId ?? null;
    values[8]![i] = st.event ?? null;
    values[9]![i] = st.wakeAfterMs === undefined || st.wakeAfterMs === null ? null : Math.round(st.wakeAfterMs);
    values[10]![i] = st.attempts ?? 1;
    values[11]![i] = st.position;
    values[12]![i] = st.startedAt === undefined ? null : Math.round(st.startedAt);
    i++;
  }
  return values;
}

/** The commands of a batch of checkpoints alone (`saveSteps` of distinct runs); null for any other batch. */
export function checkpointsAlone(commands: Command[]): Array<Extract<Command, { verb: "saveSteps" }>> | null {
  const saves: Array<Extract<Command, { verb: "saveSteps" }>> = [];
  const ids = new Set<string>();
  for (const cmd of commands) {
    if (cmd.verb !== "saveSteps" || ids.has(cmd.lease.runId)) return null;
    ids.add(cmd.lease.runId);
    saves.push(cmd);
  }
  return saves;
}

/**
 * Applies {@link checkpointsAlone}: one fenced upsert, run as its own transaction (no BEGIN or
 * COMMIT statement: Postgres commits it, `synchronous_commit` as for any commit, before it
 * answers). A stale claim's steps are not written; the statement commits whatever the fence found.
 */
export async function applyCheckpoints(
  db: Db,
  saves: Array<Extract<Command, { verb: "saveSteps" }>>,
): Promise<CommandResult[]> {
  const alive = (await upsertSteps(
    { query: (config) => db.statement(config) },
    saves.map((s) => ({ runId: s.lease.runId, steps: s.steps })),
    saves.map((s) => s.lease),
  ))!;
  return saves.map((s): CommandResult => (alive.has(s.lease.runId) ? { ok: true } : { ok: false, fenced: true }));
}
