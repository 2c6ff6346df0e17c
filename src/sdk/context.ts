/**
 * The public contract of code running inside a workflow: the context a handler
 * receives and the types of its options. The implementation lives in
 * `worker/context-impl.ts`.
 */
import type { BackoffPolicy } from "../core/backoff.js";
import type { Duration } from "../core/duration.js";
import type { RunId } from "../core/ids.js";

/** Structured logger bound to a run (and, inside `ctx.run`, to a step). Lines are stored with the run. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Options of `ctx.run`. */
export interface StepOptions {
  /** Retries of this step before its error reaches the run-level policy. Default 0. */
  retries?: number;
  /** Step retry timing in milliseconds (`base` doubles up to `max`, ±20 % jitter). */
  backoff?: Partial<BackoffPolicy>;
  /** `false`: an error from this step is permanent and fails the run at once, with no retry. */
  retry?: boolean;
}

/** What a step body receives: the run's metadata plus the step's own. */
export interface StepContext {
  readonly runId: RunId;
  readonly workflowName: string;
  /** Run attempt (1-based). */
  readonly attempt: number;
  /** The step's checkpoint key (its name, or `name#2` when repeated). */
  readonly stepName: string;
  /** Attempt of this step body (1-based); with runId and stepName it makes an idempotency key. */
  readonly stepAttempt: number;
  /** Logger whose lines belong to this step. */
  readonly logger: Logger;
}

/** Options of `ctx.waitFor`. */
export interface WaitOptions {
  /** Give up after this long and return `null`. Default: wait forever. */
  timeout?: Duration;
}

/**
 * The context passed to a workflow handler. Every durable primitive takes a stable
 * name: the name is the checkpoint key, so keep it the same for the life of a run.
 */
export interface WorkflowContext {
  readonly runId: RunId;
  readonly workflowName: string;
  /** Run attempt (1-based); sleeping and waiting do not spend attempts. */
  readonly attempt: number;
  /** Logger whose lines belong to this run. */
  readonly logger: Logger;

  /**
   * Runs `fn` once and checkpoints its JSON result; a replay returns the saved result
   * without calling `fn`. At least once: a crash after `fn` but before the save re-runs it,
   * so give side effects an idempotency key (`${ctx.runId}:charge`).
   * @example const order = await ctx.run("load-order", () => db.orders.find(id));
   */
  run<T>(name: string, fn: (step: StepContext) => T | Promise<T>, options?: StepOptions): Promise<T>;

  /**
   * Durable sleep. Under 30 s it runs inline; longer, the run parks until its stored
   * wake time (surviving restarts, never firing early) and frees its worker slot.
   * @param duration milliseconds, or a string such as `"24h"`
   */
  sleep(name: string, duration: Duration): Promise<void>;

  /**
   * Parks the run until `signal(event, payload)` is sent, and returns the payload;
   * with a timeout, returns `null` once it passes. The event name is the checkpoint key.
   */
  waitFor<T = unknown>(event: string, options?: WaitOptions): Promise<T | null>;

  /** Ends the run as `cancelled`, with no retry. Never returns. */
  bail(reason?: string): never;

  /** Ends the run as `failed`, with no retry. Never returns. */
  fail(error: unknown): never;
}
