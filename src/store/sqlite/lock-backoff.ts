/**
 * How long a SQLite writer waits before asking for the write lock again after finding it taken
 * by another process (`store/sqlite/write-lock.ts`). The wait is spent on the event loop, not in
 * SQLite's busy handler, so timers, HTTP and heartbeats keep running meanwhile.
 *
 * The first retries come quickly (a lock is usually held for one short transaction: ~1 to 15 ms),
 * then every {@link LOCK_RETRY_MAX_MS} at most, so a writer gets the lock within a few ms of its
 * release however long the wait. Each wait is spread by ±25 % so that several waiting processes do
 * not ask in step.
 */

/** The longest wait between two attempts (ms). */
export const LOCK_RETRY_MAX_MS = 4;

/**
 * The wait before attempt `retry` + 1 (`retry` counts from 0 for the first retry): 1, 2, 4, 4, … ms,
 * each times a factor in [0.75, 1.25) drawn from `random()` (a number in [0, 1)).
 */
export function lockRetryDelayMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(LOCK_RETRY_MAX_MS, 2 ** Math.max(0, retry));
  return base * (0.75 + 0.5 * random());
}
