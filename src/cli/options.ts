/** Parsing of option values shared by commands; each error names the option and the fix. */
import { toMillis } from "../core/duration.js";
import { isAcceptedTime } from "../core/time.js";
import { parseUserJson } from "../core/serde.js";
import { InvalidInputError } from "../sdk/errors.js";
import type { RunStatus } from "../core/run-status.js";
import { parseStatusFilter } from "../core/status-filter.js";

/** `--status a,b`: run statuses, or Tako's names for them (`dead` means `failed`). */
export function parseStatuses(value: string): RunStatus[] {
  return parseStatusFilter(value, "--status");
}

/** A positive whole number option. */
export function parseCount(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidInputError(`${name} must be a whole number, got "${value}"`, { code: "INVALID_NUMBER" });
  return n;
}

/** A duration option (`30s`, `5m`, `1500`). */
export function parseDurationOption(value: string, name: string): number {
  try {
    return toMillis(value);
  } catch {
    throw new InvalidInputError(
      `${name} "${value}" is not a duration: use a number of milliseconds or a value like 30s, 5m, 2h`,
      {
        code: "INVALID_DURATION",
      },
    );
  }
}

/** `--run-at`: an ISO time, epoch milliseconds, or a delay from now such as `10m` or `+10m`. */
export function parseRunAtOption(value: string, now = Date.now()): number {
  const v = value.trim();
  if (/^\+?\d+(\.\d+)?\s*[a-z]+/i.test(v)) {
    try {
      return now + toMillis(v.replace(/^\+/, ""));
    } catch {
      // fall through to the clear error below
    }
  }
  const t = /^\d{10,}$/.test(v) ? Number(v) : Date.parse(v);
  if (isAcceptedTime(t)) return t;
  throw new InvalidInputError(
    `--run-at "${value}" is not a time: use an ISO time (2026-12-01T09:00:00Z), epoch milliseconds, or a delay like 10m, between 1970 and 9999`,
    {
      code: "INVALID_TIME",
    },
  );
}

/** A JSON argument typed on the command line. */
export function parseJsonArg(value: string | undefined, what: string, fallback: unknown): unknown {
  return value === undefined ? fallback : parseUserJson(value, what);
}
