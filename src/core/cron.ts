import { Cron } from "croner";
import { InvalidScheduleError } from "./errors.js";

/** A five-field cron schedule in a time zone (default UTC). */
export interface CronSchedule {
  cron: string;
  timezone: string;
}

/** What a workflow definition accepts as `schedule`. */
export type ScheduleInput = string | { cron: string; timezone?: string };

/**
 * Validates and normalises a schedule.
 * @throws InvalidScheduleError for anything but five fields, an invalid expression or an unknown time zone
 */
export function parseSchedule(input: ScheduleInput): CronSchedule {
  const cron = (typeof input === "string" ? input : input?.cron)?.trim();
  const timezone = (typeof input === "string" ? undefined : input?.timezone) ?? "UTC";
  if (typeof cron !== "string" || cron.split(/\s+/).length !== 5) {
    throw new InvalidScheduleError(
      `invalid schedule ${JSON.stringify(input)}: use a five-field cron expression "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5"`,
    );
  }
  if (!isValidTimeZone(timezone)) {
    throw new InvalidScheduleError(
      `unknown time zone ${JSON.stringify(timezone)}: use an IANA name such as "Europe/Paris" or "UTC"`,
    );
  }
  try {
    makeCron({ cron, timezone }).nextRun(new Date(0));
  } catch (err) {
    throw new InvalidScheduleError(`invalid cron expression ${JSON.stringify(cron)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { cron, timezone };
}

/** True when `tz` is an IANA time zone this runtime knows. */
function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The first fire time strictly after `afterMs`, or null if the schedule never fires again. */
export function nextFireAfter(schedule: CronSchedule, afterMs: number): number | null {
  const next = makeCron(schedule).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

/** Every fire time in `(afterMs, untilMs]`, oldest first, at most `limit`. */
export function fireTimesBetween(schedule: CronSchedule, afterMs: number, untilMs: number, limit = 1_000): number[] {
  const cron = makeCron(schedule);
  const out: number[] = [];
  let cursor: Date | null = new Date(afterMs);
  while (out.length < limit) {
    cursor = cron.nextRun(cursor);
    if (!cursor || cursor.getTime() > untilMs) break;
    out.push(cursor.getTime());
  }
  return out;
}

function makeCron(schedule: CronSchedule): Cron {
  // Vixie-cron semantics: day-of-month and day-of-week are OR-ed when both are set.
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true, mode: "5-part", domAndDow: false });
}
