/**
 * SIGSTOP a process that may hold a SQLite write lock, at a moment of the test's choosing: a
 * process stopped inside a commit keeps the lock and every other writer waits for it
 * (docs/RELIABILITY.md), so tests of a stopped worker choose when it stops.
 */
import type { ChildProcess } from "node:child_process";
import Database from "better-sqlite3";

/** Whether another process holds the SQLite write lock of `file` right now (a zero-wait `BEGIN IMMEDIATE`). */
export function writeLockHeld(file: string): boolean {
  const db = new Database(file, { timeout: 0 });
  try {
    db.exec("BEGIN IMMEDIATE");
    db.exec("ROLLBACK");
    return false;
  } catch (err) {
    if ((err as { code?: string }).code !== "SQLITE_BUSY") throw err;
    return true;
  } finally {
    db.close();
  }
}

/**
 * SIGSTOPs `proc` at a moment when it does (`inCommit`) or does not hold the SQLite write lock,
 * resuming and stopping again until it does; returns how many stops it took, or null past `withinMs`.
 * A process stopped inside a commit (a heartbeat, a checkpoint) keeps the lock, and every other
 * writer waits for it: a limit of SQLite (docs/RELIABILITY.md), not what a lease can fix.
 */
export async function stopWhere(
  proc: ChildProcess,
  file: string,
  inCommit: boolean,
  withinMs = 20_000,
): Promise<number | null> {
  const until = Date.now() + withinMs;
  for (let stops = 1; Date.now() < until; stops++) {
    proc.kill("SIGSTOP");
    if (writeLockHeld(file) === inCommit) return stops;
    proc.kill("SIGCONT");
    await new Promise((r) => setTimeout(r, 2 + Math.random() * 20));
  }
  return null;
}
