/**
 * `sluice.json` schedule rows (pure): a cron for any runnable by name, as Windmill attaches a
 * schedule to a script or a flow: `{"name": "nightly", "kind": "schedule", "target":
 * "f/ops/report", "cron": "0 6 * * *", "timezone": "Europe/Paris"}`. The row's cron becomes the
 * runnable's schedule (replacing one its code declares), fired by the scheduler like any other:
 * once per tick across servers, with an empty payload. Native trigger kinds are in `spec.ts`.
 *
 * @module
 */
import { type CronSchedule, parseSchedule } from "../core/cron.js";
import { TriggerError } from "./errors.js";

/** One schedule row of `sluice.json`. */
export interface ScheduleRow {
  readonly name: string;
  /** The runnable it fires (a workflow, a workflow-as-code, a script). */
  readonly target: string;
  readonly schedule: CronSchedule;
}

const KEYS = new Set(["name", "kind", "target", "cron", "timezone"]);

/** Parses one schedule row (its `name` and `target` already checked). @throws TriggerError naming the field */
export function parseScheduleRow(row: Record<string, unknown>, where: string): ScheduleRow {
  const extra = Object.keys(row).filter((k) => !KEYS.has(k));
  if (extra.length)
    throw new TriggerError(
      "TRIGGER_ROW_INVALID",
      `${where}: a schedule row takes "cron" and "timezone" only, not ${extra.map((k) => JSON.stringify(k)).join(", ")}`,
    );
  if (typeof row.cron !== "string")
    throw new TriggerError("TRIGGER_ROW_INVALID", `${where}: "cron" must be a five-field cron such as "0 6 * * *"`);
  if (row.timezone !== undefined && typeof row.timezone !== "string")
    throw new TriggerError("TRIGGER_ROW_INVALID", `${where}: "timezone" must be an IANA name such as "Europe/Paris"`);
  try {
    const schedule = parseSchedule({ cron: row.cron, ...(row.timezone !== undefined && { timezone: row.timezone }) });
    return { name: String(row.name), target: String(row.target), schedule };
  } catch (err) {
    throw new TriggerError("TRIGGER_ROW_INVALID", `${where}: ${(err as Error).message}`);
  }
}

/**
 * The schedule rows of `sluice.json` `"triggers"` as runnable name → cron (rows already checked by
 * `parseConfigTriggers`; anything else is skipped). Two rows for one runnable: the last wins.
 */
export function scheduleRowsOf(raw: unknown): Map<string, CronSchedule> {
  const out = new Map<string, CronSchedule>();
  if (!Array.isArray(raw)) return out;
  raw.forEach((row: unknown, i) => {
    if (typeof row !== "object" || row === null || (row as { kind?: unknown }).kind !== "schedule") return;
    const r = parseScheduleRow(row as Record<string, unknown>, `sluice.json triggers[${i}]`);
    out.set(r.target, r.schedule);
  });
  return out;
}
