/**
 * SIGSTOP a process that may hold a SQLite write lock, at a moment of the test's choosing: a
 * process stopped inside a commit keeps the lock and every other writer waits for it
 * (docs/RELIABILITY.md), so tests of a stopped worker choose when it stops.
 */
import { type ChildProcess, spawn } from "node:child_process";
import Database from "better-sqlite3";
import { REPO } from "./project.js";

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

/** A process holding a SQLite write lock (see {@link holdWriteLock}). */
export interface LockHolder {
  proc: ChildProcess;
  /** Commits, and resolves once the process has exited. */
  release: () => Promise<void>;
  /** SIGKILLs the process if it still runs (for cleanup). */
  kill: () => void;
}

/**
 * Another process that opens `file`, takes its write lock (`BEGIN IMMEDIATE`), runs `sql` and keeps
 * the lock; resolves once it holds it. It commits and exits at `release()`, or on its own after
 * `holdMs` when given (for a test whose next call blocks this process's event loop, as an open does).
 */
export async function holdWriteLock(file: string, sql: string, holdMs?: number): Promise<LockHolder> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.env.LOCK_FILE);
    db.exec("BEGIN IMMEDIATE");
    db.exec(process.env.LOCK_SQL);
    process.stdout.write("LOCKED\\n");
    const end = () => { db.exec("COMMIT"); db.close(); process.exit(0); };
    if (process.env.HOLD_MS) setTimeout(end, Number(process.env.HOLD_MS));
    else process.stdin.once("data", end);`;
  const proc = spawn(process.execPath, ["-e", script], {
    cwd: REPO,
    env: { ...process.env, LOCK_FILE: file, LOCK_SQL: sql, HOLD_MS: holdMs === undefined ? "" : String(holdMs) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("LOCKED")) resolve();
    });
    proc.once("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return {
    proc,
    release: async () => {
      proc.stdin!.write("go\n");
      await exited;
    },
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
}
