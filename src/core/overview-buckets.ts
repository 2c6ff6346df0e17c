/**
 * The rules of the overview page's charts (pure): which windows exist and how wide their
 * buckets are, where a window starts (bucket edges aligned to multiples of the bucket
 * width, so a chart does not shift under the reader between refreshes; the last bucket
 * is the one `now` falls in and is still filling), and how the store's per-bucket event
 * counts (`Store.overview`) become one row per bucket, including the queue depth at each
 * bucket's end: the queue at the window's start plus every enqueue, less every first
 * start and every run that left the queue without starting.
 *
 * "Queued" here means enqueued and not yet started, whatever the run's `run_at`: a run
 * sent back for another attempt (or woken from a wait) is not counted again, because the
 * store keeps a run's first start only.
 *
 * The counts (enqueued, finished, succeeded, failed, cancelled) are of top-level runs, the
 * runs the Runs page lists by default and its status filters show: a task child whose failure
 * its parent caught is not a failed run of the overview. The queue depth counts every run,
 * children included, since each waits for a worker all the same.
 */
import { InvalidInputError } from "./errors.js";

/** A window of the overview page. */
export type OverviewWindow = "1h" | "1d";

/** Bucket width and count of each window. */
const OVERVIEW_WINDOWS: Readonly<Record<OverviewWindow, { bucketMs: number; buckets: number }>> = {
  "1h": { bucketMs: 60_000, buckets: 60 },
  "1d": { bucketMs: 15 * 60_000, buckets: 96 },
};

/**
 * Checks a `window` value (default `1h`).
 * @throws InvalidInputError (code INVALID_OVERVIEW_WINDOW) naming the windows there are
 */
export function parseOverviewWindow(value: string | null | undefined): OverviewWindow {
  if (value === undefined || value === null || value === "") return "1h";
  if (value === "1h" || value === "1d") return value;
  throw new InvalidInputError(`window ${JSON.stringify(value)} is not an overview window: use 1h or 1d`, {
    code: "INVALID_OVERVIEW_WINDOW",
  });
}

/** Where a window's buckets lie: `buckets` buckets of `bucketMs` from `from`; the last one holds `now`. */
export interface OverviewRange {
  from: number;
  bucketMs: number;
  buckets: number;
}

/** The range of `window` ending in the bucket that holds `now` (store clock, epoch ms). */
export function overviewRange(window: OverviewWindow, now: number): OverviewRange {
  const { bucketMs, buckets } = OVERVIEW_WINDOWS[window];
  const current = Math.floor(now / bucketMs);
  return { from: (current - (buckets - 1)) * bucketMs, bucketMs, buckets };
}

/** The events the store counts per bucket (`OverviewEvent` of `store/types.ts`). */
export type BucketEvent = "enqueued" | "started" | "succeeded" | "failed" | "cancelled" | "left-unstarted";

/** One bucket of the charts. */
export interface OverviewBucket {
  /** Start of the bucket (epoch ms). */
  start: number;
  enqueued: number;
  started: number;
  /** Runs that finished (succeeded, failed or cancelled): the throughput. */
  finished: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Runs enqueued and not yet started at the end of the bucket (at `now` for the last one). */
  queued: number;
}

/**
 * One row per bucket of `range` from the store's counts. A count outside the range (a
 * clock step between reading `now` and reading the counts) goes to the nearest bucket.
 */
export function bucketActivity(
  range: OverviewRange,
  activity: ReadonlyArray<{ bucket: number; event: BucketEvent; topLevel: boolean; count: number }>,
  queuedAtFrom: number,
): OverviewBucket[] {
  const rows: OverviewBucket[] = Array.from({ length: range.buckets }, (_, i) => ({
    start: range.from + i * range.bucketMs,
    enqueued: 0,
    started: 0,
    finished: 0,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    queued: 0,
  }));
  // The queue's flows, every run counted; the rows' figures count top-level runs only.
  const queueIn = new Array<number>(range.buckets).fill(0);
  const queueOut = new Array<number>(range.buckets).fill(0);
  for (const a of activity) {
    const i = Math.min(range.buckets - 1, Math.max(0, Math.floor(a.bucket)));
    const row = rows[i]!;
    const counted = a.topLevel ? a.count : 0;
    switch (a.event) {
      case "enqueued":
        queueIn[i]! += a.count;
        row.enqueued += counted;
        break;
      case "started":
        queueOut[i]! += a.count;
        row.started += counted;
        break;
      case "succeeded":
      case "failed":
      case "cancelled":
        row[a.event] += counted;
        row.finished += counted;
        break;
      case "left-unstarted":
        // Never started, so it left the queue; it finished (cancelled) all the same.
        queueOut[i]! += a.count;
        row.cancelled += counted;
        row.finished += counted;
        break;
    }
  }
  let queued = queuedAtFrom;
  rows.forEach((row, i) => {
    queued += queueIn[i]! - queueOut[i]!;
    row.queued = queued;
  });
  return rows;
}
