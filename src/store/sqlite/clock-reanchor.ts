/**
 * The SQLite half of `store/clock-reanchor.ts`: finds the runs due later whose row was written by
 * a clock now behind, and moves their due time (and the wake times of their pending steps: a
 * sleep's, a step retry's, a wait's deadline) by the same amount; recomputes the next tick of cron
 * schedules such a clock wrote; ends leases a clock ahead wrote once not renewed. Call inside a transaction.
 */
import {
  CLOCK_BACK_TOLERANCE_MS,
  type DueRunRow,
  type LeaseAheadRow,
  leaseAheadAction,
  reanchoredNextAt,
  reanchoredReadyAt,
  type ScheduleAheadRow,
} from "../clock-reanchor.js";
import type { Statements } from "./statements.js";

const AHEAD_WHERE = "ready_at > ? AND updated_at > ? AND status IN ('pending', 'waiting')";
const SCHEDULE_AHEAD_WHERE = "next_at > ? AND updated_at > ? AND paused = 0";

/**
 * Whether any run due later or cron schedule was written ahead of `now`: read outside the write
 * lock first, since it reads every pending and waiting run (the scheduler asks every minute;
 * almost always none).
 */
export function anyWrittenAhead(s: Statements, now: number): boolean {
  const args = [now, now + CLOCK_BACK_TOLERANCE_MS];
  return (
    s.get(`SELECT 1 FROM runs WHERE ${AHEAD_WHERE} LIMIT 1`).get(...args) !== undefined ||
    s.get(`SELECT 1 FROM schedules WHERE ${SCHEDULE_AHEAD_WHERE} LIMIT 1`).get(...args) !== undefined
  );
}

/**
 * Re-anchors what {@link reanchoredReadyAt} and {@link reanchoredNextAt} say to; returns how
 * many runs and schedules moved.
 */
export function reanchorDueTimes(s: Statements, now: number): number {
  return reanchorRuns(s, now) + reanchorSchedules(s, now);
}

function reanchorRuns(s: Statements, now: number): number {
  const rows = s
    .get(
      `SELECT id, ready_at AS readyAt, updated_at AS updatedAt, created_at AS createdAt, started_at AS startedAt
       FROM runs WHERE ${AHEAD_WHERE}`,
    )
    .all(now, now + CLOCK_BACK_TOLERANCE_MS) as Array<DueRunRow & { id: string }>;
  let moved = 0;
  for (const row of rows) {
    const at = reanchoredReadyAt(row, now);
    if (at === null) continue;
    const shift = row.readyAt - at;
    const changed = s
      .get("UPDATE runs SET ready_at = ?, updated_at = ? WHERE id = ? AND ready_at = ?")
      .run(at, now, row.id, row.readyAt).changes;
    if (changed === 0) continue;
    s.get(
      "UPDATE steps SET wake_at = wake_at - ? WHERE run_id = ? AND status = 'pending' AND wake_at IS NOT NULL AND wake_at > ?",
    ).run(shift, row.id, now);
    moved++;
  }
  return moved;
}

/**
 * Applies {@link leaseAheadAction} to the running runs whose lease ends past the tolerance (none
 * with leases under a minute on clocks that agree): notes the leases found ahead, ends those noted
 * a lease length ago and not renewed since. Each write is a compare-and-set on the lease's end and
 * token. Returns how many leases it ended.
 */
export function reanchorLeases(s: Statements, now: number): number {
  const rows = s
    .get(
      `SELECT id, claims, lease_expires_at AS leaseExpiresAt, lease_ms AS leaseMs, lease_noticed_at AS noticedAt
       FROM runs WHERE status = 'running' AND lease_expires_at > ? AND lease_ms IS NOT NULL`,
    )
    .all(now + CLOCK_BACK_TOLERANCE_MS) as Array<LeaseAheadRow & { id: string; claims: number }>;
  let ended = 0;
  for (const row of rows) {
    const action = leaseAheadAction(row, now);
    if (action === null) continue;
    const set = "notice" in action ? "lease_noticed_at = ?" : "lease_expires_at = ?";
    const changes = s
      .get(`UPDATE runs SET ${set} WHERE id = ? AND claims = ? AND status = 'running' AND lease_expires_at = ?`)
      .run("notice" in action ? action.notice : action.expiresAt, row.id, row.claims, row.leaseExpiresAt).changes;
    if (!("notice" in action)) ended += changes;
  }
  return ended;
}

function reanchorSchedules(s: Statements, now: number): number {
  const rows = s
    .get(
      `SELECT workflow, cron, timezone, next_at AS nextAt, updated_at AS updatedAt FROM schedules WHERE ${SCHEDULE_AHEAD_WHERE}`,
    )
    .all(now, now + CLOCK_BACK_TOLERANCE_MS) as Array<ScheduleAheadRow & { workflow: string }>;
  let moved = 0;
  for (const row of rows) {
    const at = reanchoredNextAt(row, now);
    if (at === null) continue;
    // Compare-and-set on next_at, as a fired tick is: a tick fired meanwhile wins.
    moved += s
      .get("UPDATE schedules SET next_at = ?, updated_at = ? WHERE workflow = ? AND next_at = ?")
      .run(at, now, row.workflow, row.nextAt).changes;
  }
  return moved;
}
