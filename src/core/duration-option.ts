/**
 * The one rule for durations in Sluice's public TypeScript API (issue 10): an option or
 * parameter that is a length of time is a {@link Duration} (a number is milliseconds, or
 * `"30s"`, `"5m"`, `{ seconds: 30 }`) and is named for what it bounds, never for its unit
 * (`timeout`, `drain`, `window`, `inlineSleep`, `tick`, `poll`, `lease`, `busyTimeout`).
 * The earlier `…Ms` names stay accepted as deprecated aliases (numbers of ms); the new name
 * wins when both are given. `sluice/windmill` keeps Windmill's names and units (seconds) and
 * JSON over HTTP keeps `…Ms` integer fields, as wire formats have no `Duration`.
 */
import { type Duration, toMillis } from "./duration.js";

/**
 * Milliseconds of a duration option given under its name (`value`) or its deprecated `…Ms`
 * alias (`legacyMs`); `fallback` when neither is set.
 * @throws InvalidDurationError when the value is not a valid duration
 * @example durationOption("2s", undefined, 30_000) // 2000
 * @example durationOption(undefined, 500, 30_000) // 500
 */
export function durationOption(value: Duration | undefined, legacyMs: number | undefined, fallback: number): number;
export function durationOption(
  value: Duration | undefined,
  legacyMs: number | undefined,
  fallback?: undefined,
): number | undefined;
export function durationOption(
  value: Duration | undefined,
  legacyMs: number | undefined,
  fallback?: number,
): number | undefined {
  if (value !== undefined) return toMillis(value);
  if (legacyMs !== undefined) return toMillis(legacyMs);
  return fallback;
}
