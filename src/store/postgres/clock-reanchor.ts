/**
 * The Postgres half of `store/clock-reanchor.ts` (on the database server's clock, `now_ms()`):
 * finds the runs due later whose row was written by a clock now behind, and moves their due time
 * (and the wake times of their pending steps) by the same amount.
 */
import type { PoolClient } from "pg";
import { CLOCK_BACK_TOLERANCE_MS, type DueRunRow, reanchoredReadyAt } from "../clock-reanchor.js";

/** Re-anchors what {@link reanchoredReadyAt} says to, in the caller's transaction; returns how many runs moved. */
export async function reanchorDueTimes(c: PoolClient): Promise<number> {
  const now = Number((await c.query<{ now: string }>("SELECT now_ms() AS now")).rows[0]!.now);
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
