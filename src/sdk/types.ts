import type { RunId } from "../core/ids.js";
import type { SerializedError } from "../core/serde.js";
import type { Duration } from "../core/duration.js";

/** Options of `.enqueue()` / `.start()`. */
export interface EnqueueOptions {
  /** Do not start before this time (Date, epoch ms or ISO string). Default now. */
  runAt?: Date | number | string;
  /** Retries after the first attempt for this run; overrides the workflow's `retries`. */
  retries?: number;
  /**
   * Run id (1–255 bytes, no NUL). The same id with the same workflow and payload returns
   * the existing run in any status; with a different workflow or payload it is a conflict.
   */
  id?: string;
  /** Higher is claimed first. Default 0. */
  priority?: number;
  /** Who starts the run (a user name); `waitForApproval({ selfApproval: false })` refuses their decision. */
  createdBy?: string;
  /**
   * At most `limit` runs sharing `key` run at once (and, with `window`, start within any such
   * window, e.g. `"1m"`), whichever workflow and worker (built-in or an SDK over the worker
   * protocol): honoured at claim. `windowMs` is the deprecated name of `window`.
   */
  concurrency?: {
    key: string;
    limit: number;
    window?: Duration | null;
    /** The earlier name of `window`, in ms. @deprecated Use `window` (a Duration; a number is ms). */
    windowMs?: number | null;
  };
  /**
   * The W3C trace context the run continues (a `traceparent` and optional `tracestate`, as an
   * HTTP caller sends them). Default: the OpenTelemetry context active at the call. Ignored
   * when `traceparent` is not a valid one.
   */
  trace?: { traceparent: string; tracestate?: string };
}

/**
 * Options of a batch enqueue (`engine.enqueueMany`): the {@link EnqueueOptions} every run
 * shares, and optionally one id per payload (same rules as `id`, in the payloads' order).
 */
export interface EnqueueManyOptions extends Omit<EnqueueOptions, "id"> {
  /** One run id per payload, in order; each deduplicates like `EnqueueOptions.id`. */
  ids?: readonly string[];
  /** Only with a single payload: that run's id (use `ids` for several). */
  id?: string;
}

/** A run's public state. */
export interface RunInfo {
  id: RunId;
  workflow: string;
  status: "pending" | "running" | "waiting" | "succeeded" | "failed" | "cancelled";
  attempt: number;
  maxAttempts: number;
  payload: unknown;
  result: unknown;
  error: SerializedError | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A handle on one run. */
export interface RunHandle<R> {
  readonly id: RunId;
  /** True when the enqueue found an existing run with this id. */
  readonly deduplicated: boolean;
  /**
   * Resolves with the run's result once it succeeds.
   * @throws RunFailedError when it failed, RunCancelledError when cancelled,
   *   WaitTimeoutError after `timeout` (the run keeps going)
   */
  result(options?: {
    /** Give up waiting after this long (`"30s"`, ms). Default: wait as long as it takes. */
    timeout?: Duration;
    /** The earlier name of `timeout`, in ms. @deprecated Use `timeout` (a Duration; a number is ms). */
    timeoutMs?: number;
  }): Promise<R>;
  /** The run's current state. */
  info(): Promise<RunInfo>;
}
