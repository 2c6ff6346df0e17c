/**
 * Row mapping. Postgres rows use the same column names as SQLite's, so the
 * dialect-neutral mappers of the SQLite store are reused; only booleans differ.
 */
import { toScheduleOwner } from "../schedule-sync.js";
import type { ScheduleRecord } from "../types.js";

export { rawToRun, type RunRow, type StepRow, toLog, toRun, toStep, toWorkflow } from "../sqlite/rows.js";

/** Maps a `schedules` row (`paused` is a boolean here). */
export function toSchedule(r: {
  workflow: string;
  cron: string;
  timezone: string;
  next_at: number | null;
  paused: boolean;
  last_fired_at: number | null;
  owner: string;
}): ScheduleRecord {
  return {
    workflow: r.workflow,
    cron: r.cron,
    timezone: r.timezone,
    nextAt: r.next_at,
    paused: r.paused,
    lastFiredAt: r.last_fired_at,
    owner: toScheduleOwner(r.owner),
  };
}
