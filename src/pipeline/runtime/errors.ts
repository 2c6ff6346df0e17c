/**
 * Named errors of the pipeline runtime (running scripts, dispatching the cascade,
 * selective runs, triggers). Stable `code`s, messages that say what to do.
 */
import { SluiceError } from "../../sdk/errors.js";

/** Stable codes raised by the pipeline runtime. */
export type PipelineRuntimeErrorCode =
  | "PIPELINE_FOLDER_NOT_FOUND"
  | "PIPELINE_INVALID"
  | "PIPELINE_SCRIPT_UNKNOWN"
  | "PIPELINE_SCRIPT_NOT_LOADED"
  | "PIPELINE_TRIGGER_NOT_CONFIGURED"
  | "PIPELINE_PLAN_FAILED"
  | "PIPELINE_BACKFILL_FAILED"
  | "PIPELINE_BACKFILL_UNKNOWN"
  | "PIPELINE_BACKFILL_ACTIVE"
  | "PIPELINE_BACKFILL_FINISHED"
  | "PIPELINE_PLAN_UNKNOWN"
  | "PIPELINE_PLAN_ACTIVE"
  | "PIPELINE_CONTENTION"
  | "SQL_ARGUMENT_INVALID"
  | "SQL_PARTITION_MISSING"
  | "PARTITION_COLUMN_RESERVED"
  | "SQL_FAILED"
  | "SCRIPT_PROCESS_FAILED"
  | "SCRIPT_INTERPRETER_MISSING"
  | "BRIDGE_REQUEST_INVALID"
  | "LAKE_ASSET_INVALID"
  | "LINEAGE_NOT_FOUND"
  | "LAKE_ROLLBACK_RECORDS_FAILED";

/** Base class of the pipeline runtime's errors. */
export class PipelineRuntimeError extends SluiceError<PipelineRuntimeErrorCode> {}

/** A folder has annotation or lineage errors, so its pipeline is not loaded. */
export class PipelineInvalidError extends PipelineRuntimeError {
  constructor(
    readonly folder: string,
    readonly problems: readonly string[],
  ) {
    super(
      "PIPELINE_INVALID",
      `pipeline ${folder} has errors, fix them and save the files again:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
  }
}

/**
 * A run of a pipeline script that is not loaded was asked for (an enqueue, trigger or cron
 * tick): e.g. two files of its folder would both run under its name. Neither runs.
 */
export class PipelineScriptNotLoadedError extends PipelineRuntimeError {
  constructor(
    readonly workflow: string,
    reason: string,
  ) {
    super(
      "PIPELINE_SCRIPT_NOT_LOADED",
      `${workflow} cannot run: it is not loaded: ${reason}; fix that (sluice dev lists the pipeline's errors), then run it again`,
    );
  }
}

/** A selective run or backfill stopped at a failed step. */
export class PipelinePlanError extends PipelineRuntimeError {
  constructor(
    readonly planRun: string,
    readonly failedStep: string,
    readonly completed: readonly string[],
    readonly notRun: readonly string[],
    reason: string,
  ) {
    super(
      "PIPELINE_PLAN_FAILED",
      `step ${failedStep} failed: ${reason}; completed before it: ${completed.join(", ") || "none"}; not run: ${notRun.join(", ") || "none"}. Fix the step, then run ${[failedStep, ...notRun].length} step(s) again with: sluice pipeline resume ${planRun}`,
    );
  }
}

/** A script subprocess (Python, Bash) exited with an error. */
export class ScriptProcessError extends PipelineRuntimeError {
  constructor(
    readonly script: string,
    readonly exitCode: number | null,
    readonly signal: string | null,
    detail: string,
  ) {
    super(
      "SCRIPT_PROCESS_FAILED",
      `${script} ${signal ? `was killed by ${signal}` : `exited with code ${exitCode}`}${detail ? `: ${detail}` : ""}`,
    );
  }
}
