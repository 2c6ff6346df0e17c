/**
 * The pipeline duration grammar shared by `// debounce`, `// on … debounce=`,
 * `// retry <n> <delay>` and `// freshness`: `<n>` (bare integer = seconds) or
 * `<n>s|m|h|d`. Parsing is fail-safe: anything else returns `undefined` so the caller
 * keeps its default (for debounce: no debounce, a typo fans out).
 */

/** A parsed pipeline duration. */
export interface PipelineDuration {
  /** The text as written, e.g. `"30s"`. */
  readonly raw: string;
  /** The length in whole seconds, always > 0. */
  readonly seconds: number;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parse a pipeline duration.
 *
 * @returns the duration, or `undefined` when the text is malformed, non-positive, uses an
 * unknown unit, or overflows a safe integer.
 * @example parsePipelineDuration("5m") // { raw: "5m", seconds: 300 }
 * @example parsePipelineDuration("0s") // undefined (non-positive)
 */
export function parsePipelineDuration(text: string): PipelineDuration | undefined {
  const raw = text.trim();
  const match = /^(\d+)([smhd]?)$/.exec(raw);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = UNIT_SECONDS[match[2] ?? ""];
  if (unit === undefined || amount <= 0) return undefined;
  const seconds = amount * unit;
  if (!Number.isSafeInteger(seconds)) return undefined;
  return { raw, seconds };
}

/** The grammar, for messages. */
export const DURATION_HINT = "use <n> (seconds) or <n>s, <n>m, <n>h, <n>d with n > 0, e.g. 30s, 5m, 2h, 1d";
