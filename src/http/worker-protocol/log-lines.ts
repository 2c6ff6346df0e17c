/**
 * The lines of a claim's `logs` write, parsed one by one: a line whose own fields are wrong
 * (a `level` that is not one, a `ts` that is not epoch ms or is too far ahead of the server's
 * clock) is refused alone, named by its index, and the request's other lines are stored.
 * One bad line no longer takes its whole batch with it; an SDK that gets a line back in
 * `refused` may send it again without `ts` (the server then stamps it with the time it
 * receives it). A body that is wrong as a whole (`lines` not an array, a bad `token` or
 * `attempt`) is still refused with 400 `INVALID_BODY`.
 */
import type { LogLine } from "../../store/types.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { optInt } from "../input.js";

/** How far ahead of the server's clock a line's `ts` may be (clock skew, a request in flight). */
const LOG_TS_AHEAD_MS = 60_000;

const LOG_LEVELS = new Set(["debug", "info", "warn", "error"]);

/** A line of the request that was not stored, and why (its index in `lines`). */
export interface RefusedLogLine {
  line: number;
  code: "INVALID_LINE";
  message: string;
}

/** The lines to store and the ones refused. */
export interface ParsedLogLines {
  lines: LogLine[];
  refused: RefusedLogLine[];
}

/**
 * Parses the body of a `logs` write of run `runId` under claim `token`; `storeNow` is read
 * (once) only when a line has a `ts`, which is checked against the store's clock (the one
 * `claimedAt` is on).
 * @throws InvalidInputError (400) for a body that is wrong as a whole
 */
export async function parseLogLines(
  runId: string,
  token: number,
  b: Record<string, unknown>,
  storeNow: () => Promise<number>,
): Promise<ParsedLogLines> {
  const attempt = optInt(b, "attempt", 1, 1_000_000) ?? 1;
  if (!Array.isArray(b.lines))
    throw new InvalidInputError('"lines" must be an array of {level, message, stepKey?, ts?}', {
      code: "INVALID_BODY",
    });
  const raw: unknown[] = b.lines;
  const timed = raw.some((l) => isObject(l) && l.ts !== undefined);
  const now = timed ? await storeNow() : Date.now();
  const out: ParsedLogLines = { lines: [], refused: [] };
  raw.forEach((l, i) => {
    const fault = lineFault(l, i, now);
    if (fault !== null) {
      out.refused.push({ line: i, code: "INVALID_LINE", message: fault });
      return;
    }
    const o = l as Record<string, unknown>;
    out.lines.push({
      runId,
      token,
      attempt,
      level: (o.level ?? "info") as LogLine["level"],
      message: String(o.message ?? ""),
      stepKey: typeof o.stepKey === "string" ? o.stepKey : null,
      ts: typeof o.ts === "number" ? o.ts : now,
    });
  });
  return out;
}

/** What is wrong with line `i` (a sentence naming the field and what to send), or null. */
function lineFault(l: unknown, i: number, now: number): string | null {
  if (!isObject(l)) return `"lines[${i}]" must be an object such as {"level": "info", "message": "hello"}`;
  if (l.level !== undefined && !LOG_LEVELS.has(l.level as string))
    return `"lines[${i}].level" must be one of debug, info, warn, error; got ${JSON.stringify(l.level)}`;
  const ts = l.ts;
  if (ts === undefined) return null;
  if (typeof ts !== "number" || !Number.isSafeInteger(ts) || ts < 0)
    return `"lines[${i}].ts" must be when the line was logged, in epoch milliseconds (an integer such as ${now}), or be left out for the time the server receives it; got ${JSON.stringify(ts)}`;
  if (ts > now + LOG_TS_AHEAD_MS)
    return `"lines[${i}].ts" is ${ts - now} ms ahead of the server's clock: send times on the claim's clock (claimedAt plus the time elapsed since the claim arrived), or leave "ts" out`;
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
