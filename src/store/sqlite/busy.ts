/** Recognising SQLite's "the lock is taken" answer, for the writers and the opening that retry it. */
import { lockRetryDelayMs } from "./lock-backoff.js";

/** Whether `err` is SQLite's "the lock is taken" (`SQLITE_BUSY` and its extended codes). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** What {@link untilNotBusy} sleeps on (nothing ever wakes it: each wait runs to its timeout). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `steps` (each safe to run again) until they pass SQLite's lock, for up to `timeoutMs`.
 * SQLite's busy handler does not cover every wait at open: a connection that reads a new file and
 * must then write it to switch it to WAL gets `SQLITE_BUSY` at once while another process holds its
 * write lock (deadlock avoidance), as when two processes start on a new project together. The open
 * is synchronous, as the busy handler's waits are: the pauses sleep the thread (1, 2, 4, 4 … ms).
 * Used by the store's connection and by lake catalogs (`lake/catalog-sqlite.ts`).
 */
export function untilNotBusy(timeoutMs: number, steps: () => void): void {
  const deadline = performance.now() + timeoutMs;
  for (let retry = 0; ; retry++) {
    try {
      steps();
      return;
    } catch (err) {
      const pause = lockRetryDelayMs(retry);
      if (!isBusy(err) || performance.now() + pause > deadline) throw err;
      Atomics.wait(PAUSE, 0, 0, pause);
    }
  }
}
