/**
 * The Postgres half of `store/clock-reanchor.ts` (on the database server's clock, `now_ms()`):
 * finds the runs due later whose row was written by a clock now behind, and moves their due time
 * (and the wake times of their pending steps) by the same amount; recomputes the next tick of cron
 * schedules such a clock wrote; ends leases written while that clock was ahead once not renewed.
 */
import type { ClientBase, PoolClient } from "pg";
import {
  CLOCK_BACK_TOLERANCE_MS,
  type DueRunRow,
  leaseAheadAction,
  reanchoredNextAt,
  reanchoredReadyAt,
} from "../clock-reanchor.js";

/**
 * Re-anchors what {@link reanchoredReadyAt} and {@link reanchoredNextAt} say to, in the caller's
 * transaction; returns how many runs and schedules moved.
 */
export async function reanchorDueTimes(c: PoolClient): Promise<number> {
  const now = Number((await c.query<{ now: string }>("SELECT now_ms() AS now")).rows[0]!.now);
  return (await reanchorRuns(c, now)) + (await reanchorSchedules(c, now));
}

async function reanchorRuns(c: PoolClient, now: number): Promise<number> {
  const { rows } = await c.query<{
    id: string;
    readyAt: string;
    updatedAt: string;
    createdAt: string;
    startedAt: string | null;
  }>(
    `SELECT id, ready_at AS "readyAt", updated_at AS "updatedAt", created_at AS "createdAt", started_at AS "startedAt"
     FROM runs WHERE ready_at > $1 AND updated_at > $2 AND status IN ('pending', 'waiting') FOR UPDATE SKIP LOCKED`,
    [now, now + CLOCK_BACK_TOLERANCE_MS],
  );
  let moved = 0;
  for (const r of rows) {
    const row: DueRunRow = {
      readyAt: Number(r.readyAt),
      updatedAt: Number(r.updatedAt),
      createdAt: Number(r.createdAt),
      startedAt: r.startedAt === null ? null : Number(r.startedAt),
    };
    const at = reanchoredReadyAt(row, now);
    if (at === null) continue;
    await c.query("UPDATE runs SET ready_at = $1, updated_at = $2 WHERE id = $3", [at, now, r.id]);
    await c.query(
      "UPDATE steps SET wake_at = wake_at - $1 WHERE run_id = $2 AND status = 'pending' AND wake_at IS NOT NULL AND wake_at > $3",
      [row.readyAt - at, r.id, now],
    );
    moved++;
  }
  return moved;
}

/**
 * Applies {@link leaseAheadAction}, in the caller's transaction, to the running runs whose lease
 * ends past the tolerance (an index range of `runs_leases`), skipping rows another transaction
 * holds (a renewal in flight wins): notes the leases found ahead, ends those noted a lease length
 * ago and not renewed since. Each write is a compare-and-set on the lease's end and token. Returns
 * how many leases it ended.
 */
export async function reanchorLeases(c: ClientBase): Promise<number> {
  const { rows } = await c.query<{
    id: string;
    claims: number;
    at: string;
    ms: string;
    noticed: string | null;
    now: string;
  }>(
    `SELECT id, claims, lease_expires_at AS at, lease_ms AS ms, lease_noticed_at AS noticed, now_ms() AS now FROM runs
     WHERE status = 'running' AND lease_expires_at > now_ms() + $1 AND lease_ms IS NOT NULL FOR UPDATE SKIP LOCKED`,
    [CLOCK_BACK_TOLERANCE_MS],
  );
  const ids: string[] = [];
  const tokens: number[] = [];
  const was: number[] = [];
  const noticed: Array<number | null> = [];
  const ends: Array<number | null> = [];
  for (const r of rows) {
    const leaseExpiresAt = Number(r.at);
    const action = leaseAheadAction(
      { leaseExpiresAt, leaseMs: Number(r.ms), noticedAt: r.noticed === null ? null : Number(r.noticed) },
      Number(r.now),
    );
    if (action === null) continue;
    ids.push(r.id);
    tokens.push(r.claims);
    was.push(leaseExpiresAt);
    noticed.push("notice" in action ? action.notice : null);
    ends.push("notice" in action ? null : action.expiresAt);
  }
  if (ids.length === 0) return 0;
  const { rows: ended } = await c.query<{ ended: boolean }>(
    `UPDATE runs r SET lease_noticed_at = COALESCE(u.noticed, r.lease_noticed_at), lease_expires_at = COALESCE(u.ends, r.lease_expires_at)
     FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[], $5::bigint[]) u(id, token, was, noticed, ends)
     WHERE r.id = u.id AND r.claims = u.token AND r.status = 'running' AND r.lease_expires_at = u.was
     RETURNING u.ends IS NOT NULL AS ended`,
    [ids, tokens, was, noticed, ends],
  );
  return ended.filter((r) => r.ended).length;
}

async function reanchorSchedules(c: PoolClient, now: number): Promise<number> {
  const { rows } = await c.query<{
    workflow: string;
    cron: string;
    timezone: string;
    nextAt: string;
    updatedAt: string;
  }>(
    `SELECT workflow, cron, timezone, next_at AS "nextAt", updated_at AS "updatedAt" FROM schedules
     WHERE next_at > $1 AND updated_at > $2 AND NOT paused`,
    [now, now + CLOCK_BACK_TOLERANCE_MS],
  );
  let moved = 0;
  for (const r of rows) {
    const nextAt = Number(r.nextAt);
    const at = reanchoredNextAt({ ...r, nextAt, updatedAt: Number(r.updatedAt) }, now);
    if (at === null) continue;
    // Compare-and-set on next_at, as a fired tick is: a tick fired meanwhile wins.
    const { rowCount } = await c.query(
      "UPDATE schedules SET next_at = $1, updated_at = $2 WHERE workflow = $3 AND next_at = $4",
      [at, now, r.workflow, nextAt],
    );
    moved += rowCount ?? 0;
  }
  return moved;
}
