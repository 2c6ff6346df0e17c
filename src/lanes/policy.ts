/**
 * The lane supervisor's rules, as pure functions: which lanes have runnable work, and
 * how long to hold back a lane that did not do any (so a broken worker cannot cause a
 * storm of processes).
 */
import type { QueueReadiness } from "../store/types.js";

/** Which lanes have runnable work now, and the earliest time another one will. */
export interface LaneDemand {
  /** Lanes (worker groups) with a run whose `ready_at` has come. */
  due: string[];
  /** Earliest future `ready_at` among the other lanes' runs (store clock), or null. */
  nextAt: number | null;
}

/**
 * Maps per-queue readiness onto lanes. A local workflow's queue `group@server` belongs
 * to the lane `group` of that server only; another server's local queues are ignored.
 * With `server` null (SQLite: one machine) every queue is its own lane.
 */
export function laneDemand(rows: readonly QueueReadiness[], now: number, server: string | null): LaneDemand {
  const due = new Set<string>();
  let nextAt: number | null = null;
  for (const row of rows) {
    const lane = laneOfQueue(row.queue, server);
    if (lane === null) continue;
    if (row.readyAt <= now) due.add(lane);
    else nextAt = nextAt === null ? row.readyAt : Math.min(nextAt, row.readyAt);
  }
  return { due: [...due].sort(), nextAt };
}

/** The lane of a queue on `server`, or null when the queue is another server's local queue. */
export function laneOfQueue(queue: string, server: string | null): string | null {
  if (server === null) return queue;
  const at = queue.lastIndexOf("@");
  if (at < 0) return queue;
  return queue.slice(at + 1) === server ? queue.slice(0, at) : null;
}

/**
 * How long a crashed lane waits before one more try while work is runnable:
 * `base`, doubling with each consecutive crash, at most 10 minutes (or `base` if larger).
 */
export function crashRetryDelay(crashes: number, baseMs: number): number {
  const cap = Math.max(baseMs, 600_000);
  return Math.min(cap, baseMs * 2 ** Math.max(0, Math.min(crashes - 1, 20)));
}

/**
 * How long to hold back a lane whose worker exited cleanly without claiming anything
 * although work looked runnable (another server's lane took it, or the worker cannot
 * run it): 1 s, doubling, at most 30 s. Zero after a worker that claimed.
 */
export function quietExitDelay(quietExits: number): number {
  if (quietExits <= 0) return 0;
  return Math.min(30_000, 1_000 * 2 ** Math.min(quietExits - 1, 10));
}

/** Keeps the last `max` lines of a stream's output (for a crash report). */
export class LineTail {
  private readonly lines: string[] = [];

  constructor(private readonly max = 20) {}

  /** Adds a line (trailing whitespace and terminal colour codes removed; blank lines skipped). */
  push(line: string): void {
    // eslint-disable-next-line no-control-regex
    const clean = line.replace(/\u001b\[[0-9;]*m/g, "").trimEnd();
    if (!clean) return;
    this.lines.push(clean);
    if (this.lines.length > this.max) this.lines.shift();
  }

  /** The kept lines, oldest first. */
  get(): string[] {
    return [...this.lines];
  }

  /** Forgets every line. */
  clear(): void {
    this.lines.length = 0;
  }
}
