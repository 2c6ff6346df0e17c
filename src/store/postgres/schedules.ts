/** Cron schedules on Postgres: sync, pause, and the compare-and-set that fires one tick once. */
import type pg from "pg";
import type { FireScheduleRequest } from "../types.js";
import { insertRuns } from "./enqueue.js";
import { LOCK_CLASS } from "./migrate.js";
import { planScheduleSync, type ScheduleEntry, type ScheduleOwner, type StoredSchedule } from "../schedule-sync.js";

/** A schedule to keep (see `Store.syncSchedules`). */
export type { ScheduleEntry };

/**
 * Replaces `owner`'s schedules with `entries` (the rule: `store/schedule-sync.ts`), keeping `next_at`
 * of unchanged ones. Serialised across processes.
 */
export async function syncSchedules(c: pg.ClientBase, entries: ScheduleEntry[], owner: ScheduleOwner): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock($1, hashtext('schedules'))", [LOCK_CLASS + 3]);
  const { rows } = await c.query<StoredSchedule>("SELECT workflow, cron, timezone, owner FROM schedules");
  const plan = planScheduleSync(rows, entries, owner);
  if (plan.remove.length) await c.query("DELETE FROM schedules WHERE workflow = ANY($1::text[])", [plan.remove]);
  const kept = plan.upsert.filter((e) => e.keepNext).map((e) => e.workflow);
  if (kept.length)
    await c.query("UPDATE schedules SET owner = $1, updated_at = now_ms() WHERE workflow = ANY($2::text[])", [
      owner,
      kept,
    ]);
  const written = plan.upsert.filter((e) => !e.keepNext);
  if (written.length === 0) return;
  await c.query(
    `INSERT INTO schedules (workflow, cron, timezone, next_at, updated_at, owner)
     SELECT u.workflow, u.cron, u.tz, u.next_at, now_ms(), $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) u(workflow, cron, tz, next_at)
     ON CONFLICT (workflow) DO UPDATE SET cron = excluded.cron, timezone = excluded.timezone, next_at = excluded.next_at,
       updated_at = excluded.updated_at, owner = excluded.owner`,
    [
      written.map((e) => e.workflow),
      written.map((e) => e.cron),
      written.map((e) => e.timezone),
      written.map((e) => e.nextAt),
      owner,
    ],
  );
}

/** Records one tick and enqueues its run, unless another scheduler took the tick first. */
export async function fireSchedule(c: pg.ClientBase, req: FireScheduleRequest, audit: boolean): Promise<boolean> {
  const { rowCount } = await c.query(
    `UPDATE schedules SET next_at = $1, last_fired_at = $2, updated_at = now_ms()
     WHERE workflow = $3 AND next_at = $2 AND NOT paused`,
    [req.nextAt, req.expectedNextAt, req.workflow],
  );
  if (!rowCount) return false;
  // The run id is derived from the tick, so a repeat (any server) deduplicates.
  await insertRuns(c, [{ req: req.run }], audit);
  return true;
}
