/**
 * Write transactions that wait for another process's SQLite write lock on the event loop.
 *
 * SQLite's own busy handler waits by sleeping the thread (1, 2, 5, 10, 15, 20, 25 … ms), and
 * better-sqlite3 calls it synchronously: a process whose writer waits for the lock held by another
 * process (a server and its workers on one file) stops running timers, HTTP answers and heartbeats
 * for the whole wait. Here the connection's busy timeout is 0: `BEGIN IMMEDIATE` either takes the
 * lock at once or fails with `SQLITE_BUSY`, and the transaction is tried again after a short wait
 * on a timer (`lock-backoff.ts`) until the store's busy timeout has passed, when the last
 * `SQLITE_BUSY` error is thrown, as SQLite's handler would have.
 *
 * States of one transaction: tried at once (the lock is free: it runs and commits within the
 * call, no timer, as before) → or queued → tried at each retry → done, failed, or timed out.
 * Queued transactions keep their order: while any waits, a new one queues behind it, so this
 * process's writes commit in the order they were asked for, as they did when every wait blocked.
 *
 * Only writes wait here. Reads in WAL mode take no lock another process's writer holds; what could
 * still make a read busy (another process recovering the WAL index after a crash) makes it fail at
 * once rather than wait.
 */
import type Database from "better-sqlite3";
import { isBusy } from "./busy.js";
import { lockRetryDelayMs } from "./lock-backoff.js";

/** How a transaction commits. */
export interface WriteOptions {
  /**
   * Commit with `synchronous=NORMAL` instead of FULL (no fsync at this commit; the next FULL
   * commit's fsync covers it): only for work that may be lost in a crash and done again (retention).
   */
  relaxed?: boolean;
}

interface Waiter {
  fn: () => unknown;
  options: WriteOptions | undefined;
  deadline: number;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Marks an attempt that found the lock taken. */
const BUSY: unique symbol = Symbol("busy");

/** Runs IMMEDIATE transactions on one connection, waiting for a taken lock on a timer. */
export class WriteTransactions {
  private readonly runTx: Database.Transaction<(fn: () => unknown) => unknown>;
  private readonly waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private retries = 0;
  private began = false;
  private lastBusy: unknown = null;
  private readonly syncNormal: Database.Statement;
  private readonly syncFull: Database.Statement;

  /**
   * @param db an open connection, which this sets to a busy timeout of 0
   * @param timeoutMs how long a transaction may wait for the lock before it fails with `SQLITE_BUSY`
   */
  constructor(
    db: Database.Database,
    private readonly timeoutMs: number,
    private readonly random: () => number = Math.random,
  ) {
    db.pragma("busy_timeout = 0");
    // One transaction function for every call (better-sqlite3 builds a new one per `transaction()`).
    this.runTx = db.transaction((fn: () => unknown) => {
      this.began = true;
      return fn();
    });
    this.syncNormal = db.prepare("PRAGMA synchronous = NORMAL");
    this.syncFull = db.prepare("PRAGMA synchronous = FULL");
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (the write lock taken up front, so no upgrade
   * deadlocks): at once when the lock is free and nothing of this process waits (the value, not a
   * promise), else once the lock is had (a promise).
   * @throws (or rejects with) what `fn` throws, or `SQLITE_BUSY` past the timeout
   */
  run<T>(fn: () => T, options?: WriteOptions): T | Promise<T> {
    if (this.waiting.length === 0) {
      const value = this.attempt(fn, options);
      if (value !== BUSY) return value;
    }
    return new Promise<T>((resolve, reject) => {
      const deadline = performance.now() + this.timeoutMs;
      this.waiting.push({ fn, options, deadline, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /** One try: `fn`'s value, or {@link BUSY} when `BEGIN IMMEDIATE` found the lock taken. */
  private attempt<T>(fn: () => T, options: WriteOptions | undefined): T | typeof BUSY {
    this.began = false;
    if (options?.relaxed) this.syncNormal.run(); // not allowed inside a transaction
    try {
      return this.runTx.immediate(fn) as T;
    } catch (err) {
      if (this.began || !isBusy(err)) throw err;
      this.lastBusy = err;
      return BUSY;
    } finally {
      if (options?.relaxed) this.syncFull.run();
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.drain();
      },
      lockRetryDelayMs(this.retries++, this.random),
    );
  }

  /** Tries the queued transactions in order until one finds the lock taken (then waits again). */
  private drain(): void {
    while (this.waiting.length > 0) {
      const w = this.waiting[0]!;
      let value: unknown;
      try {
        value = this.attempt(w.fn, w.options);
      } catch (err) {
        this.waiting.shift();
        w.reject(err);
        continue;
      }
      if (value === BUSY) {
        if (performance.now() < w.deadline) return this.schedule();
        this.waiting.shift();
        w.reject(this.lastBusy);
        continue;
      }
      this.retries = 0;
      this.waiting.shift();
      w.resolve(value);
    }
  }
}
