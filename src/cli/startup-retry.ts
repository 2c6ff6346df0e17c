/**
 * A worker that starts while its database is briefly unavailable (locked by another process
 * past the busy timeout, disk full, server restarting) waits and retries its start-up writes
 * instead of exiting, for up to `--startup-timeout`: a worker that is already running rides
 * out the same faults (the group committer backs off and retries), and a fresh one should
 * not be the only part that dies of them. A failure that retrying cannot fix (bad schema,
 * bad URL, a non-storage error) still ends the command at once.
 */
import { isTransientStorageFailure, StorageError, toStorageError } from "../store/storage-error.js";

/** How {@link retryStartup} waits and reports. */
export interface StartupRetryOptions {
  /** Give up (rethrow the last failure) once this much time has passed since the first try. */
  timeoutMs: number;
  /** Where "retrying" lines go. */
  write: (line: string) => void;
  /** Stop waiting when aborted (rethrows the last failure). */
  signal?: AbortSignal;
  /** Current time in ms (tests). */
  now?: () => number;
  /** Waits `ms` (tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** True when a start-up failure is the database's and may pass on its own. */
export function retryableAtStartup(err: unknown): boolean {
  return err instanceof StorageError ? err.transient : isTransientStorageFailure(err);
}

/** Delay before retry number `attempt` (1-based): 250 ms doubling, at most 5 s. */
export function startupBackoff(attempt: number): number {
  return Math.min(5_000, 250 * 2 ** Math.max(0, attempt - 1));
}

/** Runs `fn` (which must be safe to call again after it failed), retrying transient storage failures. */
export async function retryStartup<T>(what: string, fn: () => Promise<T>, options: StartupRetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = startupBackoff(attempt);
      if (!retryableAtStartup(err) || options.signal?.aborted || now() - started + wait > options.timeoutMs) throw err;
      options.write(
        `sluice worker: ${what} failed (${toStorageError(err).message}); retrying in ${(wait / 1000).toFixed(2)} s\n`,
      );
      await sleep(wait);
    }
  }
}
