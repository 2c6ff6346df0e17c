/** The cron schedule verbs of the SQLite store (see `Store.syncSchedules`); the sync rule is in `store/schedule-sync.ts`. */
import { planScheduleSync, type ScheduleEntry, type ScheduleOwner, type StoredSchedule } from "../schedule-sync.js";
import type { ScheduleRecord } from "../types.js";
import { toSchedule } from "./rows.js";
import type { Statements } from "./statements.js";

/** Replaces `owner`'s schedules with `entries`; call inside an IMMEDIATE transaction. */
export function syncSchedules(
  s: Statements,
  now: number,
  entries: readonly ScheduleEntry[],
  owner: ScheduleOwner,
): void {
  const stored = s.get("SELECT workflow, cron, timezone, owner FROM schedules").all() as StoredSchedule[];
  const plan = planScheduleSync(stored, entries, owner);
  for (const name of plan.remove) s.get("DELETE FROM schedules WHERE workflow = ?").run(name);
  for (const e of plan.upsert) {
    if (e.keepNext) {
      s.get("UPDATE schedules SET owner = ?, updated_at = ? WHERE workflow = ?").run(owner, now, e.workflow);
      continue;
    }
    s.get(
      `INSERT INTO schedules (workflow, cron, timezone, next_at, updated_at, owner) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (workflow) DO UPDATE SET cron = excluded.cron, timezone = excluded.timezone, next_at = excluded.next_at,
         updated_at = excluded.updated_at, owner = excluded.owner`,
    ).run(e.workflow, e.cron, e.timezone, e.nextAt, now, owner);
  }
}

/** Every schedule, by workflow name. */
export function listSchedules(s: Statements): ScheduleRecord[] {
  return (s.get("SELECT * FROM schedules ORDER BY workflow").all() as Parameters<typeof toSchedule>[0][]).map(
    toSchedule,
  );
}

/** Pauses or resumes one schedule; false when there is none for `workflow`. */
export function setSchedulePaused(s: Statements, now: number, workflow: string, paused: boolean): boolean {
  return (
    s.get("UPDATE schedules SET paused = ?, updated_at = ? WHERE workflow = ?").run(paused ? 1 : 0, now, workflow)
      .changes > 0
  );
}
