/**
 * The range of times and durations Sluice accepts, and rendering a stored time
 * without ever throwing. Pure.
 *
 * Every time a caller gives (`runAt`, a wake time) must fall within years 1970–9999,
 * and every duration (`ctx.sleep`, timeouts, backoff) within {@link MAX_DURATION_MS},
 * so that `now + duration` is always a representable date. Reads never trust that a
 * stored value obeys the rule: {@link isoOrNull} and {@link timeText} render anything.
 */

/** Latest accepted time: 9999-12-31T23:59:59.999Z. */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** Longest accepted duration: 1000 years (365.25-day years). */
export const MAX_DURATION_MS = 1000 * 365.25 * 86_400_000;
/** Largest magnitude a JavaScript Date can hold. */
const DATE_LIMIT_MS = 8.64e15;

/** True when `ms` is an accepted time: a finite epoch millisecond in 1970–9999. */
export function isAcceptedTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_TIME_MS;
}

/** True when `ms` is an accepted duration: finite, 0 to {@link MAX_DURATION_MS}. */
export function isAcceptedDuration(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_DURATION_MS;
}

/** Whether a stored value can be shown as a date at all. */
function representable(ms: unknown): ms is number {
  return typeof ms === "number" && Number.isFinite(ms) && Math.abs(ms) <= DATE_LIMIT_MS;
}

/** ISO 8601 of a stored time, or null when it is not a representable date (never throws). */
export function isoOrNull(ms: unknown): string | null {
  return representable(ms) ? new Date(ms).toISOString() : null;
}

/**
 * A stored time for people: `2026-11-29 22:33:52` (UTC), `-` for null, and
 * `invalid time (<value>)` for a value that is not a date (never throws).
 */
export function timeText(ms: unknown): string {
  if (ms === null || ms === undefined) return "-";
  if (!representable(ms)) return `invalid time (${String(ms).slice(0, 40)})`;
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}
