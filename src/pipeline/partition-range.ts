/**
 * Enumerating the partitions between two values, for backfills: parse both ends in the
 * scheme's format (or an ISO 8601 date as a fallback, never a coarser ISO week or month), then step bucket by bucket in the scheme's
 * zone. Daylight-saving repeats of an hour are listed once.
 */
import { DateTime } from "luxon";
import { PartitionRangeError, PartitionResolutionError } from "./errors.js";
import type { PartitionSpec, TimePartitionSpec } from "./partition-spec.js";
import { bucketStart, bucketStep, isBeforeStart, type Instant } from "./partition-time.js";
import { compileStrftime, formatShape } from "./strftime.js";

/** Options of {@link enumeratePartitions}. */
export interface EnumerateOptions {
  /** Refuse ranges with more partitions than this (default 10 000). */
  readonly limit?: number;
  /** Skip buckets entirely before `start=` (default `true`). */
  readonly clipToStart?: boolean;
}

/** An ISO 8601 calendar date, with or without a time (a week `2026-W03` or a month `2026-01` is not one). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:$|T)/;
/** An ISO 8601 date with at least the hour. */
const ISO_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}/;

/**
 * The bucket start of a partition value. Accepts the value as the scheme renders it, or an
 * ISO 8601 date (with a time for `hourly`, optional otherwise) inside the bucket, interpreted
 * in the scheme's zone. Values coarser than a bucket or of another calendar (`2026-W03`,
 * `2026-01` on a daily scheme) are refused: they name no one bucket.
 *
 * @throws PartitionResolutionError (`PARTITION_VALUE_INVALID`) naming the expected format.
 */
export function parsePartitionValue(spec: TimePartitionSpec, value: string): DateTime {
  const format = compileStrftime(spec.format);
  const iso = (spec.kind === "hourly" ? ISO_HOUR : ISO_DATE).test(value)
    ? DateTime.fromISO(value, { zone: spec.tz })
    : undefined;
  const parsed = format.parse(value, spec.tz) ?? (iso?.isValid ? iso : undefined);
  if (!parsed) {
    const sample = format.render(DateTime.fromISO("2026-05-16T10:00", { zone: spec.tz }));
    const alt =
      spec.kind === "hourly"
        ? 'an ISO date-time like "2026-05-16T10:00"'
        : `an ISO date like "2026-05-16"${spec.kind === "daily" ? "" : ` (the ${spec.kind} partition containing it)`}`;
    const shape = formatShape(spec.format);
    throw new PartitionResolutionError(
      "PARTITION_VALUE_INVALID",
      `${JSON.stringify(value)} is not ${spec.kind === "hourly" ? "an" : "a"} ${spec.kind} partition: write it as ${shape} (format ${JSON.stringify(spec.format)}), e.g. ${JSON.stringify(sample)}${alt.includes(JSON.stringify(sample)) ? "" : `, or as ${alt}`}`,
    );
  }
  return bucketStart(spec, parsed);
}

function toBucket(spec: TimePartitionSpec, end: string | Instant): DateTime {
  return typeof end === "string" ? parsePartitionValue(spec, end) : bucketStart(spec, end);
}

/**
 * Every partition from `from` to `to`, both inclusive, in order.
 *
 * @throws PartitionRangeError `PARTITION_NOT_ENUMERABLE` (dynamic), `PARTITION_RANGE_REVERSED`,
 * `PARTITION_RANGE_TOO_LARGE`; PartitionResolutionError `PARTITION_VALUE_INVALID` for an unparseable end.
 * @example enumeratePartitions(spec, "2026-05-30", "2026-06-02") // ["2026-05-30", "2026-05-31", "2026-06-01", "2026-06-02"]
 */
export function enumeratePartitions(
  spec: PartitionSpec,
  from: string | Instant,
  to: string | Instant,
  options: EnumerateOptions = {},
): string[] {
  if (spec.kind === "dynamic") {
    throw new PartitionRangeError(
      "PARTITION_NOT_ENUMERABLE",
      "dynamic partitions have no order to enumerate; list the values to backfill explicitly",
    );
  }
  const limit = options.limit ?? 10_000;
  const clip = options.clipToStart ?? true;
  const first = toBucket(spec, from);
  const last = toBucket(spec, to);
  if (first.toMillis() > last.toMillis()) {
    throw new PartitionRangeError("PARTITION_RANGE_REVERSED", "the range ends before it starts; swap from and to");
  }
  const format = compileStrftime(spec.format);
  const out: string[] = [];
  for (let cur = first; cur.toMillis() <= last.toMillis(); cur = cur.plus(bucketStep(spec.kind))) {
    if (clip && isBeforeStart(spec, cur)) continue;
    const value = format.render(cur);
    if (out[out.length - 1] === value) continue;
    if (out.length >= limit) {
      throw new PartitionRangeError(
        "PARTITION_RANGE_TOO_LARGE",
        `the range has more than ${limit} ${spec.kind} partitions; split it into smaller ranges or raise the limit`,
      );
    }
    out.push(value);
  }
  return out;
}
