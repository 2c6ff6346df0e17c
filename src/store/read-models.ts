/**
 * What the stores answer for operators' views, read at request time: queue readiness
 * (lanes), the figures `/metrics` adds to the engine's own, and the overview page's buckets.
 */
import type { RunStatus } from "../core/run-status.js";

/** See {@link Store.readyByQueue}. */
export interface QueueReadiness {
  queue: string;
  /** Earliest `ready_at` among the queue's pending or waiting runs (store clock). */
  readyAt: number;
}

/** See {@link Store.metricsSnapshot}. */
export interface StoreMetrics {
  /** The store's clock when the figures were read. */
  now: number;
  /** Runs by workflow and status (every status, finished ones too, until retention deletes them). */
  runs: Array<{ workflow: string; status: RunStatus; count: number }>;
  /** Per worker group (queue): runs claimable now (`ready_at` has come) and the earliest `ready_at` among them. */
  runnable: Array<{ queue: string; count: number; oldestReadyAt: number }>;
  /** Approvals undecided on waiting runs. */
  approvalsWaiting: number;
}

/** See {@link Store.overview}: the window the figures are read for. */
export interface OverviewRequest {
  /** Start of the window (store clock, epoch ms); the window ends now. */
  from: number;
  /** Width of one bucket (ms): each figure is counted in bucket `floor((t - from) / bucketMs)`. */
  bucketMs: number;
  /** How many workflows to list in `slowest`. */
  slowest: number;
  /** How many waiting approvals to list. */
  approvals: number;
}

/**
 * What happened to runs in one bucket: `enqueued` (created), `started` (first claimed),
 * `succeeded` / `failed` / `cancelled` (finished with that status), `left-unstarted`
 * (finished without ever being claimed: cancelled while pending).
 */
export type OverviewEvent = "enqueued" | "started" | "succeeded" | "failed" | "cancelled" | "left-unstarted";

/** See {@link Store.overview}. */
export interface StoreOverview {
  /**
   * Counts per bucket, event and whether the runs are top-level (no parent: what the Runs page lists by
   * default) or task children; combinations without runs are absent.
   */
  activity: Array<{ bucket: number; event: OverviewEvent; topLevel: boolean; count: number }>;
  /** Runs enqueued before `from` and neither started nor finished by then (the queue at the window's start). */
  queuedAtFrom: number;
  /** Workflows whose runs finished (succeeded or failed) in the window, slowest mean first-start-to-finish first. */
  slowest: Array<{ workflow: string; runs: number; meanMs: number; maxMs: number }>;
  /** Undecided approvals of waiting runs, longest waiting first. */
  approvals: Array<{ runId: string; workflow: string; key: string; since: number; options: string | null }>;
}
