/**
 * A task's `timeout` option (`core/task-options.ts`) as a deadline on the store's clock, measured
 * from the run's first start: a timer ends the claim when it passes, and a claim that settles or
 * starts after it (code that blocked the event loop past it, a takeover after the lease ran out)
 * fails all the same.
 */
import { runTimeoutMs } from "../core/task-options.js";
import { serializeError } from "../core/serde.js";
import { SluiceError } from "../sdk/errors.js";
import type { RunOutcome, RunRecord } from "../store/types.js";

/** A task exceeded its `timeout` option. */
export class TaskTimeoutError extends SluiceError {
  constructor(ms: number) {
    super(
      "TASK_TIMEOUT",
      `the task ran longer than its timeout of ${ms / 1000} s and was stopped: raise the timeout or make the task faster`,
    );
  }
}

/** When a run's `timeout` passes. */
export class TaskDeadline {
  private constructor(
    /** The `timeout` option, in ms. */
    readonly timeoutMs: number,
    /** When it passes, epoch ms on the store's clock. */
    readonly at: number,
  ) {}

  /** The deadline of `run`, first started at `startedAt` (else `claimedAt`); null without a `timeout`. */
  static of(run: Pick<RunRecord, "options" | "startedAt">, claimedAt: number): TaskDeadline | null {
    const timeoutMs = runTimeoutMs(run.options);
    return timeoutMs === null ? null : new TaskDeadline(timeoutMs, (run.startedAt ?? claimedAt) + timeoutMs);
  }

  /** True once the deadline has passed at `now`. */
  passed(now: number): boolean {
    return now >= this.at;
  }

  /** Calls `expire` when the deadline passes (at once if it has); the timer does not hold the process open. */
  arm(now: number, expire: () => void): NodeJS.Timeout {
    const timer = setTimeout(expire, Math.max(0, this.at - now));
    timer.unref();
    return timer;
  }

  /** The outcome of a run past its deadline. */
  outcome(): RunOutcome {
    return { status: "failed", error: serializeError(new TaskTimeoutError(this.timeoutMs)) };
  }
}
