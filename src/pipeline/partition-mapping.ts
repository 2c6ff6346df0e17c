/**
 * Partition mappings between time schemes, as Dagster's `TimeWindowPartitionMapping`: a
 * range of fine partitions (say daily) selects the coarser partitions (weekly, monthly)
 * whose time windows overlap it, so a daily backfill can also run the weekly and monthly
 * steps downstream of it, once per window, after the daily partitions. Pure.
 */
import { enumeratePartitions, parsePartitionValue } from "./partition-range.js";
import type { TimePartitionKind, TimePartitionSpec } from "./partition-spec.js";
import { bucketStep } from "./partition-time.js";

const GRAIN: Readonly<Record<TimePartitionKind, number>> = { hourly: 0, daily: 1, weekly: 2, monthly: 3 };

/** Rank of a time kind from finest (hourly, 0) to coarsest (monthly, 3). */
export function grain(kind: TimePartitionKind): number {
  return GRAIN[kind];
}

/** Whether partitions of `to` are coarser than those of `from` (e.g. daily → weekly). */
export function isCoarser(from: TimePartitionSpec, to: TimePartitionSpec): boolean {
  return GRAIN[to.kind] > GRAIN[from.kind];
}

/**
 * The partitions of `to` whose windows overlap the range `first`..`last` (inclusive) of
 * `from` partitions, in order.
 * @example mapTimeRange(daily, "2026-05-01", "2026-05-10", weekly) // ["2026-W18", "2026-W19"]
 * @throws PartitionResolutionError for a value not in `from`'s format; PartitionRangeError as {@link enumeratePartitions}
 */
export function mapTimeRange(from: TimePartitionSpec, first: string, last: string, to: TimePartitionSpec): string[] {
  const start = parsePartitionValue(from, first);
  const end = parsePartitionValue(from, last).plus(bucketStep(from.kind)).minus({ milliseconds: 1 });
  return enumeratePartitions(to, start, end);
}
