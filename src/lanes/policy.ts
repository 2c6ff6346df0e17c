/**
 * The lane supervisor's rules, as pure functions: which lanes have runnable work, and
 * how long to hold back a lane that did not do any (so a broken worker cannot cause a
 * storm of processes).
 */
import type { QueueReadiness, WorkflowInfo } from "../store/types.js";

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
 * Whether a worker command's lane has runnable work, and when it next will: `rows` are
 * `readyByQueue` of the workflows the command claims; with `groups` (it claims only from
 * those) runs of other groups do not count. Queues map to lanes as in {@link laneDemand}.
 */
export function commandDemand(
  rows: readonly QueueReadiness[],
  now: number,
  server: string | null,
  groups: readonly string[] | null,
): { due: boolean; nextAt: number | null } {
  const mine =
    groups === null
      ? rows
      : rows.filter((r) => {
          const lane = laneOfQueue(r.queue, server);
          return lane !== null && groups.includes(lane);
        });
  const demand = laneDemand(mine, now, server);
  return { due: demand.due.length > 0, nextAt: demand.nextAt };
}

/**
 * The published workflows that nothing this server knows of serves: not removed and not in
 * `served` (its own registry, the Python files' worker, the worker commands that said what
 * they claim). Their runs wake a worker command that has not said yet what it serves.
 */
export function unservedWorkflows(
  published: readonly Pick<WorkflowInfo, "name" | "removedAt">[],
  served: ReadonlySet<string>,
): string[] {
  return published.filter((w) => !w.removedAt && !served.has(w.name)).map((w) => w.name);
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

/**
 * The supervisor's check budget: a bucket of up to {@link CHECK_BURST} checks, refilled
 * one per spacing. Busy workers commit constantly and every commit wakes the supervisor,
 * so checks are spaced to cost at most about a tenth of its time; the burst lets the check
 * that notices new work run at once even right after another check (a worker's exit).
 */
export interface CheckBudget {
  /** Checks that may run now (fractional while refilling). */
  credit: number;
  /** When `credit` was counted (ms, monotonic). */
  at: number;
}

/** Checks that may run back to back after a quiet period. */
export const CHECK_BURST = 2;

/** A full budget at `now`. */
export function fullCheckBudget(now: number): CheckBudget {
  return { credit: CHECK_BURST, at: now };
}

/** Spacing of checks: ten times the last check's duration, never under 25 ms. */
export function checkSpacing(lastCheckMs: number): number {
  return Math.max(25, 10 * lastCheckMs);
}

/**
 * Takes one check from `budget` at `now`: how long it must wait (0 when credit is left)
 * and the budget after it. A delayed check takes its credit when it runs.
 */
export function takeCheck(
  budget: CheckBudget,
  now: number,
  spacingMs: number,
): { waitMs: number; budget: CheckBudget } {
  // A check already scheduled later holds the budget until it runs.
  const from = Math.max(now, budget.at);
  const credit = Math.min(CHECK_BURST, budget.credit + (from - budget.at) / spacingMs);
  if (credit >= 1) return { waitMs: from - now, budget: { credit: credit - 1, at: from } };
  const waitMs = from - now + (1 - credit) * spacingMs;
  return { waitMs, budget: { credit: 0, at: now + waitMs } };
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
