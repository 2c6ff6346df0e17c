/**
 * Which cron schedules a sync replaces: the rule both stores follow for `Store.syncSchedules`.
 *
 * Every schedule has an **owner**: `release` for the schedules `sluice deploy` publishes, `process`
 * for the ones a process registers from the code it loaded itself (`sluice dev`, `sluice server` on a
 * project folder) and from the out-of-process workers (Go, Python) registered with it. A sync
 * replaces only its owner's schedules: it removes the ones of that owner it no longer lists, adds or
 * updates the ones it lists (taking over a workflow's schedule from the other owner), and leaves the
 * other owner's alone, so a deploy never drops a schedule that only an external worker registered.
 *
 * @module
 */

/** Who registered a schedule (see the module comment). */
export type ScheduleOwner = "release" | "process";

/**
 * The owner a stored `owner` column names: `release`, else `process` (the column's default, and
 * what rows written before owners existed mean). Both stores' row mappers read it through here.
 */
export function toScheduleOwner(stored: string): ScheduleOwner {
  return stored === "release" ? "release" : "process";
}

/** A schedule a sync lists. */
export interface ScheduleEntry {
  workflow: string;
  cron: string;
  timezone: string;
  nextAt: number | null;
}

/** A stored schedule, as far as a sync needs it. */
export interface StoredSchedule {
  workflow: string;
  cron: string;
  timezone: string;
  owner: ScheduleOwner;
}

/** What a sync writes: schedules to delete, and entries to insert or update (with their owner). */
export interface SchedulePlan {
  remove: string[];
  /** `keepNext`: the cron and timezone are unchanged, so the stored next tick stays (only the owner may change). */
  upsert: Array<ScheduleEntry & { keepNext: boolean }>;
}

/**
 * Plans a sync of `owner`'s schedules to `entries` against what is stored. Unchanged entries of the
 * same owner are not written at all; an unchanged entry of the other owner changes hands but keeps
 * its next tick.
 */
export function planScheduleSync(
  stored: readonly StoredSchedule[],
  entries: readonly ScheduleEntry[],
  owner: ScheduleOwner,
): SchedulePlan {
  const listed = new Set(entries.map((e) => e.workflow));
  const byName = new Map(stored.map((s) => [s.workflow, s]));
  const remove = stored.filter((s) => s.owner === owner && !listed.has(s.workflow)).map((s) => s.workflow);
  const upsert: SchedulePlan["upsert"] = [];
  for (const e of entries) {
    const old = byName.get(e.workflow);
    const same = old !== undefined && old.cron === e.cron && old.timezone === e.timezone;
    if (same && old.owner === owner) continue;
    upsert.push({ ...e, keepNext: same });
  }
  return { remove: remove.sort(), upsert };
}
