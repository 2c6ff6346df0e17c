/**
 * `sluice.json` schedule rows (pure): a cron for any runnable by name, as Windmill attaches a
 * schedule to a script or a flow: `{"name": "nightly", "kind": "schedule", "target":
 * "f/ops/report", "cron": "0 6 * * *", "timezone": "Europe/Paris"}`. The row's cron becomes the
 * runnable's schedule (replacing one its code declares), fired by the scheduler like any other:
 * once per tick across servers, with an empty payload: a target with required parameters is
 * refused ({@link checkScheduleRowTargets}). Native trigger kinds are in `spec.ts`.
 *
 * @module
 */
import { type CronSchedule, parseSchedule } from "../core/cron.js";
import type { ParamSpec } from "../core/params.js";
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

/** A loaded runnable, as far as {@link scheduleRowProblems} needs it. */
type Runnable = { readonly name: string; readonly params?: ParamSpec | null };

/**
 * The schedule rows whose runnable requires parameters: a row fires with an empty payload, so
 * every such tick would fail. `runnables` are the loaded ones (a target not loaded yet is not
 * judged; a `defineWorkflow` declares no parameters by name and is not judged either). One
 * message per row, naming the row, its target and the missing parameters.
 */
export function scheduleRowProblems(raw: unknown, runnables: readonly Runnable[], source = "sluice.json"): string[] {
  if (!Array.isArray(raw)) return [];
  const params = new Map(runnables.map((r) => [r.name, r.params?.required ?? []]));
  const problems: string[] = [];
  raw.forEach((row: unknown, i) => {
    if (typeof row !== "object" || row === null) return;
    const r = row as { kind?: unknown; name?: unknown; target?: unknown };
    if (r.kind !== "schedule" || typeof r.target !== "string") return;
    const required = params.get(r.target) ?? [];
    if (required.length > 0)
      problems.push(
        `${source} triggers[${i}] (${String(r.name)}): schedule rows fire with an empty payload, but ${r.target} requires ${required.join(", ")}; give ${required.length > 1 ? "them defaults" : "it a default"} in its code, or start it another way (a webhook row, POST /api/runs)`,
      );
  });
  return problems;
}

/**
 * Refuses the schedule rows {@link scheduleRowProblems} finds.
 * @throws TriggerError `TRIGGER_ROW_INVALID` naming each such row, its target and the missing parameters
 */
export function checkScheduleRowTargets(raw: unknown, runnables: readonly Runnable[]): void {
  const problems = scheduleRowProblems(raw, runnables);
  if (problems.length > 0) throw new TriggerError("TRIGGER_ROW_INVALID", problems.join("; "));
}
