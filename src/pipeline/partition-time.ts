/**
 * Time buckets: which bucket an instant falls in (in the scheme's zone), how a bucket is
 * rendered, and whether it lies before the scheme's `start=` anchor. All zone maths is luxon's.
 */
import { DateTime, type DurationLikeObject } from "luxon";
import { PartitionResolutionError } from "./errors.js";
import type { TimePartitionKind, TimePartitionSpec } from "./partition-spec.js";
import { compileStrftime } from "./strftime.js";

/** Something that names an instant: a `Date`, epoch milliseconds, or a luxon `DateTime`. */
export type Instant = Date | number | DateTime;

const UNIT: Readonly<Record<TimePartitionKind, "day" | "hour" | "week" | "month">> = {
  daily: "day",
  hourly: "hour",
  weekly: "week",
  monthly: "month",
};

/** One bucket step of a kind, for luxon `plus`. */
export function bucketStep(kind: TimePartitionKind): DurationLikeObject {
  return { [`${UNIT[kind]}s`]: 1 };
}

function toMillis(instant: Instant): number {
  const ms = instant instanceof Date ? instant.getTime() : typeof instant === "number" ? instant : instant.toMillis();
  if (!Number.isFinite(ms)) {
    throw new PartitionResolutionError(
      "PARTITION_NO_FIRE_TIME",
      "the fire time is not a valid instant; pass a Date, epoch milliseconds or a valid DateTime",
    );
  }
  return ms;
}

/**
 * The start of the bucket containing `instant`, in the scheme's zone (weeks start on
 * Monday, ISO). E.g. 2026-05-16T00:30Z with `tz="America/New_York"` is in the 2026-05-15 day.
 */
export function bucketStart(spec: TimePartitionSpec, instant: Instant): DateTime {
  return DateTime.fromMillis(toMillis(instant), { zone: spec.tz }).startOf(UNIT[spec.kind]);
}

/** Render a bucket (given by any instant inside it) with the scheme's format. */
export function renderBucket(spec: TimePartitionSpec, instant: Instant): string {
  return compileStrftime(spec.format).render(bucketStart(spec, instant));
}

/**
 * True when the bucket containing `instant` lies entirely before the `start=` date
 * (local midnight in `tz`). A week or month that contains the start date is not before it.
 */
export function isBeforeStart(spec: TimePartitionSpec, instant: Instant): boolean {
  if (spec.start === undefined) return false;
  const anchor = DateTime.fromISO(spec.start, { zone: spec.tz }).startOf("day");
  const end = bucketStart(spec, instant).plus(bucketStep(spec.kind));
  return end.toMillis() <= anchor.toMillis();
}
