/**
 * Named error classes of the pipeline layer. Every error carries a stable string `code`
 * (match on it, never on the message), an optional `cause`, and a message that says
 * what to do about it.
 *
 * They extend the engine's `SluiceError`, so every Sluice error is caught and serialised alike.
 */
import { SluiceError } from "../sdk/errors.js";

/** Stable codes raised by the pipeline layer. */
export type PipelineErrorCode =
  | "ASSET_URI_INVALID"
  | "PARTITION_TZ_INVALID"
  | "PARTITION_START_INVALID"
  | "PARTITION_FORMAT_INVALID"
  | "PARTITION_KEY_REQUIRED"
  | "PARTITION_KEY_INVALID"
  | "PARTITION_KEY_MISSING"
  | "PARTITION_KEY_NOT_SCALAR"
  | "PARTITION_NO_PAYLOAD"
  | "PARTITION_NO_FIRE_TIME"
  | "PARTITION_VALUE_INVALID"
  | "PARTITION_NOT_ENUMERABLE"
  | "PARTITION_RANGE_REVERSED"
  | "PARTITION_RANGE_TOO_LARGE"
  | "PARTITION_RANGE_INVALID"
  | "PIPELINE_UNKNOWN_NODE"
  | "PIPELINE_AMBIGUOUS_NODE"
  | "PIPELINE_NO_START"
  | "PIPELINE_AMBIGUOUS_START"
  | "PIPELINE_INVALID_START"
  | "PIPELINE_UNREACHABLE"
  | "PIPELINE_NO_TARGETS"
  | "PIPELINE_CYCLE";

/** Base class of every error the pipeline layer throws. */
export class PipelineError extends SluiceError<PipelineErrorCode> {}

/** An asset URI is not one of the supported kinds or is malformed. */
export class AssetUriError extends PipelineError {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(
      "ASSET_URI_INVALID",
      `invalid asset URI ${JSON.stringify(input)}: ${reason}. ` +
        "Use s3://<key>, $res:<path>, datatable://<name>[/<table>], ducklake://<name>[/<table>] or volume://<name>[/<path>]",
    );
  }
}

/**
 * A partition declaration is invalid (bad `tz=`, `start=`, `format=` or `key=`).
 * The seed fails the run on these; Sluice reports them at load time as well.
 */
export class PartitionConfigError extends PipelineError {}

/**
 * A partition value could not be resolved for a run (missing payload key, non-scalar
 * leaf, no payload, no fire time) or a given partition value is unusable.
 */
export class PartitionResolutionError extends PipelineError {}

/** A range of partitions could not be enumerated (dynamic kind, reversed or huge range). */
export class PartitionRangeError extends PipelineError {}

/** A selective-run request names nodes that do not exist or cannot be reached. */
export class PipelineSelectionError extends PipelineError {}

/** The cascade graph has a cycle where an order is required. */
export class PipelineCycleError extends PipelineError {
  constructor(readonly cycle: readonly string[]) {
    super(
      "PIPELINE_CYCLE",
      `the pipeline has a cycle: ${cycle.join(" -> ")}. ` +
        "Break it by removing one `on` input, or run the steps one at a time",
    );
  }
}
