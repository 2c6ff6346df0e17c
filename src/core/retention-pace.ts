/**
 * Pacing of retention: how many runs the next delete transaction takes, and how long to
 * step aside after it, so that deleting a long history never holds the database long
 * enough to pause claims (issue 15: no pause over 50 ms).
 *
 * Each transaction aims at {@link RetentionPace.budgetMs}: a batch that took longer is
 * shrunk in proportion, one that took under half of it doubles, within `[minBatch, maxBatch]`.
 * After each transaction retention waits as long as that transaction took (at least
 * `minRestMs`): on SQLite a writer in another process polls for the lock with growing sleeps,
 * and without a rest as long as the hold it could keep missing the lock between two batches.
 */

/** Pacing settings. */
export interface RetentionPace {
  /** Target time of one delete transaction (ms). */
  budgetMs: number;
  minBatch: number;
  maxBatch: number;
  /** Shortest rest between two transactions (ms). */
  minRestMs: number;
}

/** Default pacing: 20 ms transactions of 20 to `maxBatch` runs, at least 5 ms apart. */
export function defaultRetentionPace(maxBatch: number): RetentionPace {
  return { budgetMs: 20, minBatch: Math.min(20, maxBatch), maxBatch, minRestMs: 5 };
}

/** The size of the next batch after one of `batch` runs took `elapsedMs`. */
export function nextRetentionBatch(batch: number, elapsedMs: number, pace: RetentionPace): number {
  let next = batch;
  if (elapsedMs > pace.budgetMs) next = Math.floor((batch * pace.budgetMs) / elapsedMs);
  else if (elapsedMs < pace.budgetMs / 2) next = batch * 2;
  return Math.max(pace.minBatch, Math.min(pace.maxBatch, next));
}

/** How long to rest after a transaction that took `elapsedMs`. */
export function retentionRestMs(elapsedMs: number, pace: RetentionPace): number {
  return Math.max(pace.minRestMs, Math.ceil(elapsedMs));
}
