/** Recognising SQLite's "the lock is taken" answer, for the writers and the opening that retry it. */

/** Whether `err` is SQLite's "the lock is taken" (`SQLITE_BUSY` and its extended codes). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}
