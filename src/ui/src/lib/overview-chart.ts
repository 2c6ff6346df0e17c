/** Chart rows of the overview page from the API's buckets (pure). */
import type { ApiOverviewBucket } from "../../../http/api-types";

/** One point of the overview charts. */
export interface ChartPoint {
  /** Axis label: `HH:MM` of the bucket's start, local time. */
  label: string;
  finished: number;
  failed: number;
  queued: number;
}

/** Two-digit `HH:MM` of an ISO time in the browser's time zone. */
export function clockLabel(iso: string): string {
  const d = new Date(iso);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** The overview's buckets as chart points, oldest first. */
export function chartPoints(buckets: readonly ApiOverviewBucket[]): ChartPoint[] {
  return buckets.map((b) => ({ label: clockLabel(b.start), finished: b.finished, failed: b.failed, queued: b.queued }));
}
