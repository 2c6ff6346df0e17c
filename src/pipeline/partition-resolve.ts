/**
 * Resolving "the" partition of a run, by the seed's precedence: an explicit partition
 * argument (used as-is), else the fire time for time kinds (localised to `tz`, rendered
 * with `format`), else the payload value at `key` for dynamic.
 */
import { PartitionResolutionError } from "./errors.js";
import { extractScalar, parseKeyPath } from "./key-path.js";
import type { PartitionSpec, TimePartitionSpec } from "./partition-spec.js";
import { isBeforeStart, renderBucket, type Instant } from "./partition-time.js";
import { assertPartitionValue } from "./partition-value.js";

/** What a run knows when its partition is resolved. */
export interface PartitionContext {
  /** An explicit `partition` argument (manual run, backfill, or propagated from upstream). */
  readonly explicit?: string;
  /** The fire time: the schedule fire time, or the upstream trigger time for a cascaded run. */
  readonly fireTime?: Instant;
  /** The trigger object (preferred source for dynamic keys). */
  readonly trigger?: unknown;
  /** The run arguments (dynamic-key source when there is no trigger object). */
  readonly args?: unknown;
}

/** The outcome of {@link resolvePartition}. */
export type PartitionResolution =
  | { readonly status: "resolved"; readonly value: string; readonly source: "explicit" | "fire-time" | "payload" }
  /** The computed time bucket is before `start=`: run without a partition, log `warning`. */
  | { readonly status: "before-start"; readonly warning: string }
  /** The script is not partitioned and no explicit partition was given. */
  | { readonly status: "none" };

/**
 * The partition of the bucket containing `instant`, or `undefined` when that bucket lies
 * entirely before `start=`.
 *
 * @example partitionForInstant({ kind: "daily", tz: "UTC", format: "%Y-%m-%d" }, Date.parse("2026-05-16T09:00Z")) // "2026-05-16"
 */
export function partitionForInstant(spec: TimePartitionSpec, instant: Instant): string | undefined {
  return isBeforeStart(spec, instant) ? undefined : renderBucket(spec, instant);
}

/**
 * Resolve a run's partition.
 *
 * @throws PartitionResolutionError `PARTITION_VALUE_INVALID` (explicit value could escape its path),
 * `PARTITION_NO_FIRE_TIME` (time kind without a fire time), `PARTITION_NO_PAYLOAD`,
 * `PARTITION_KEY_MISSING`, `PARTITION_KEY_NOT_SCALAR` (dynamic).
 */
export function resolvePartition(spec: PartitionSpec | undefined, ctx: PartitionContext): PartitionResolution {
  if (ctx.explicit !== undefined) {
    return { status: "resolved", value: assertPartitionValue(ctx.explicit), source: "explicit" };
  }
  if (spec === undefined) return { status: "none" };
  if (spec.kind === "dynamic") {
    const payload = ctx.trigger ?? ctx.args;
    if (payload === undefined || payload === null) {
      throw new PartitionResolutionError(
        "PARTITION_NO_PAYLOAD",
        `dynamic partition key ${spec.key} needs a triggering payload, but the run has none; trigger it with a payload or pass an explicit partition argument`,
      );
    }
    const value = extractScalar(payload, parseKeyPath(spec.key), spec.key);
    return { status: "resolved", value: assertPartitionValue(value), source: "payload" };
  }
  if (ctx.fireTime === undefined) {
    throw new PartitionResolutionError(
      "PARTITION_NO_FIRE_TIME",
      `a ${spec.kind} partition needs the run's fire time or an explicit partition argument; pass one of them`,
    );
  }
  const value = partitionForInstant(spec, ctx.fireTime);
  if (value === undefined) {
    return {
      status: "before-start",
      warning: `the ${spec.kind} partition ${renderBucket(spec, ctx.fireTime)} is before start=${spec.start}; the run proceeds without a partition argument (guard on it in your code)`,
    };
  }
  return { status: "resolved", value, source: "fire-time" };
}
