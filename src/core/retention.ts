import { InvalidInputError } from "./errors.js";
import { type Duration, toMillis } from "./duration.js";

/** Finished runs are kept at least this long by default: 184 days (six calendar months). */
export const DEFAULT_RETENTION_MS = 184 * 86_400_000;

/** How long finished runs are kept: a duration, or `"forever"`. */
export type Retention = Duration | "forever";

/**
 * Milliseconds to keep finished runs, or `null` for forever.
 * @throws InvalidInputError for anything that is neither a duration nor "forever"
 */
export function retentionMillis(input: Retention | undefined): number | null {
  if (input === undefined) return DEFAULT_RETENTION_MS;
  if (input === "forever") return null;
  try {
    const ms = toMillis(input);
    if (ms <= 0) throw new Error("zero");
    return ms;
  } catch (err) {
    throw new InvalidInputError(
      `invalid retention ${JSON.stringify(input)}: use a positive duration such as "1d" or "30d", or "forever"`,
      {
        cause: err,
        code: "INVALID_RETENTION",
      },
    );
  }
}

/** A retention in ms (null: forever) as people write it: `forever`, `184d`, `12h`, `30m`, `1s`, else `250ms`. */
export function retentionLabel(ms: number | null): string {
  if (ms === null) return "forever";
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
