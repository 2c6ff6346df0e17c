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

/** What a stored workflow definition says of where it comes from, as far as {@link keptForeign} needs it. */
export interface PublishedWorkflow {
  name: string;
  /** Module file (relative to a project folder) it was loaded from; null for code outside any folder. */
  source: string | null;
  removedAt?: number | null;
}

/**
 * The `process` schedules a process's sync must keep although its own code does not list them:
 * those of published workflows it does not serve whose definition comes from no module file —
 * registered by an out-of-process worker (Go, Python) of another server, or not yet registered
 * again with this one while it starts, or by an embedded engine's in-process code. Such code
 * registers its own schedules again; a folder server's start must not drop and re-add them.
 * Returned as entries with their stored cron, so the sync leaves them unwritten.
 *
 * A schedule of a workflow defined in a module file that this process does not serve is not kept:
 * that file is gone from this process's folder (deleted, or the folders of two servers differ:
 * see {@link describeScheduleSync}).
 */
export function keptForeign(
  stored: readonly StoredSchedule[],
  published: readonly PublishedWorkflow[],
  serves: ReadonlySet<string>,
): ScheduleEntry[] {
  const byName = new Map(published.map((w) => [w.name, w]));
  return stored
    .filter((s) => {
      if (s.owner !== "process" || serves.has(s.workflow)) return false;
      const w = byName.get(s.workflow);
      return w !== undefined && !w.removedAt && w.source === null;
    })
    .map((s) => ({ workflow: s.workflow, cron: s.cron, timezone: s.timezone, nextAt: null }));
}

/** One change a sync makes to a schedule another writer left (see {@link describeScheduleSync}). */
export interface ScheduleChange {
  /** The workflow whose schedule it is. */
  workflow: string;
  /** Removed (no longer listed), or its cron or timezone changed. */
  change: "removed" | "changed";
  /** The stored cron (and timezone) before. */
  was: string;
  /** The new cron, for `changed`. */
  now?: string;
}

/**
 * The schedules a planned sync removes or whose cron it changes, with what they were: a folder
 * server prints them, since on a database shared by servers whose folders differ each start
 * replaces the others' schedules (the last one started wins).
 */
export function describeScheduleSync(stored: readonly StoredSchedule[], plan: SchedulePlan): ScheduleChange[] {
  const byName = new Map(stored.map((s) => [s.workflow, s]));
  const label = (s: { cron: string; timezone: string }) => `${s.cron}${s.timezone === "UTC" ? "" : ` ${s.timezone}`}`;
  const out: ScheduleChange[] = plan.remove.map((w) => ({
    workflow: w,
    change: "removed" as const,
    was: label(byName.get(w)!),
  }));
  for (const e of plan.upsert) {
    const old = byName.get(e.workflow);
    if (old && !e.keepNext) out.push({ workflow: e.workflow, change: "changed", was: label(old), now: label(e) });
  }
  return out.sort((a, b) => a.workflow.localeCompare(b.workflow));
}
