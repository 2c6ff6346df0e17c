/**
 * How old an unreferenced file must be before the automatic orphan sweep removes it (pure).
 * DuckLake keeps this per lake as the catalog option `delete_older_than` (set with
 * `CALL lake.set_option('delete_older_than', '1 week')`, stored in `ducklake_metadata`), which
 * its own `ducklake_delete_orphaned_files` and `ducklake_cleanup_old_files` honour; a lake
 * without it gets {@link DEFAULT_SWEEP_AGE_MS}, long past any write still in flight.
 */

/** Default age of the automatic sweep: one day (DuckLake's docs call files scheduled "a few days ago" safe to delete). */
export const DEFAULT_SWEEP_AGE_MS = 24 * 60 * 60 * 1000;

const UNIT_MS: Readonly<Record<string, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

/**
 * An interval as DuckDB writes one (`1 week`, `2 days`, `1 day 12 hours`, `36 hours`) in
 * milliseconds; undefined when it is not one.
 * @example intervalMs("1 day 12 hours") // 129600000
 */
export function intervalMs(text: string): number | undefined {
  const parts = text.trim().toLowerCase().split(/\s+/);
  if (parts.length < 2 || parts.length % 2 !== 0) return undefined;
  let total = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const n = Number(parts[i]);
    const unit = UNIT_MS[parts[i + 1]!.replace(/s$/, "")];
    if (!Number.isFinite(n) || n < 0 || unit === undefined) return undefined;
    total += n * unit;
  }
  return total;
}

/**
 * The age of the automatic sweep of a lake: `override` when given (an operator's setting),
 * else the lake's own `delete_older_than` when it reads as an interval, else the default.
 */
export function sweepAgeMs(metadata: Readonly<Record<string, string>>, override?: number): number {
  if (override !== undefined) return override;
  const own = metadata.delete_older_than === undefined ? undefined : intervalMs(metadata.delete_older_than);
  return own ?? DEFAULT_SWEEP_AGE_MS;
}
