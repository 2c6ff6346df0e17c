/**
 * Pacing of retention: how many runs the next delete transaction takes, and how long to
 * step aside after it, so that deleting a long history never holds the database long
 * enough to pause claims (issue 15: no pause over 50 ms).
 *
 * Each transaction aims at {@link RetentionPace.budgetMs}: a batch that took longer is
 * shrunk in proportion, one that took under half of it doubles, within `[minBatch, maxBatch]`.
 * After each transaction retention rests twice as long as that transaction took (at least
 * `minRestMs`): on SQLite a writer in another process polls for the lock with growing sleeps
 * (1, 2, 5, 10, 15, 20 ms…), and with a shorter rest its next poll could fall into the next
 * batch; with twice the hold, a writer that found the lock taken gets it at its first poll after
 * the hold (after 18 ms for a 15 ms hold, 33 ms for a hold that stretched to 30 ms).
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

/** Default pacing: 15 ms transactions of 20 to `maxBatch` runs, at least 10 ms apart. */
export function defaultRetentionPace(maxBatch: number): RetentionPace {
  return { budgetMs: 15, minBatch: Math.min(20, maxBatch), maxBatch, minRestMs: 10 };
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
  return Math.max(pace.minRestMs, Math.ceil(2 * elapsedMs));
}
