import parseMs from "ms";
import { InvalidDurationError } from "./errors.js";
import { MAX_DURATION_MS } from "./time.js";

/**
 * A length of time. A number is milliseconds (as in Tako's `ctx.sleep(name, ms)`);
 * a string uses units (`"500ms"`, `"30s"`, `"5m"`, `"2h"`, `"7d"`, also `"1h30m"`);
 * an object adds up its fields.
 */
export type Duration =
  number | string | { ms?: number; seconds?: number; minutes?: number; hours?: number; days?: number };

const UNIT_MS = { ms: 1, seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/**
 * Converts a {@link Duration} to whole milliseconds.
 * @throws InvalidDurationError for negative, non-finite, unparseable or too long input (over 1000 years).
 * @example toMillis("1h30m") // 5_400_000
 */
export function toMillis(input: Duration): number {
  const value = rawMillis(input);
  if (value === undefined || !Number.isFinite(value) || value < 0) throw new InvalidDurationError(input);
  if (value > MAX_DURATION_MS) throw new InvalidDurationError(input, { hint: "longer than the 1000-year limit" });
  return Math.round(value);
}

function rawMillis(input: Duration): number | undefined {
  if (typeof input === "number") return input;
  if (typeof input === "string") return parseString(input.trim());
  if (input !== null && typeof input === "object") {
    let total = 0;
    for (const [unit, factor] of Object.entries(UNIT_MS)) {
      const v = (input as Record<string, unknown>)[unit];
      if (v === undefined) continue;
      if (typeof v !== "number") return undefined;
      total += v * factor;
    }
    const known = Object.keys(input).every((k) => k in UNIT_MS);
    return known ? total : undefined;
  }
  return undefined;
}

/** Parses "5m", "1h30m", "2 days"; compound strings are split into `ms`-parseable parts. */
function parseString(text: string): number | undefined {
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const single = parseMs(text as parseMs.StringValue);
  if (typeof single === "number" && !Number.isNaN(single)) return single;
  const parts = text.match(/\d+(?:\.\d+)?\s*[a-z]+/gi);
  if (!parts || parts.join("").replace(/\s/g, "") !== text.replace(/\s/g, "")) return undefined;
  let total = 0;
  for (const part of parts) {
    const v = parseMs(part as parseMs.StringValue);
    if (typeof v !== "number" || Number.isNaN(v)) return undefined;
    total += v;
  }
  return total;
}

/** Formats milliseconds for people: `1.2s`, `3m 4s`, `250ms`. */
export function formatMillis(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  // Round to whole seconds first, so 3,599,700 ms reads "1h 0m", never "59m 60s".
  const totalS = Math.round(ms / 1_000);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m}m ${totalS % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
