/**
 * The `step` argument of a `ctx.run` body. Its logger (four closures) is made on first use:
 * most step bodies never log, and a fresh process runs this once per step, interpreted.
 */
import type { RunId } from "../core/ids.js";
import type { Logger, StepContext } from "../sdk/context.js";
import type { LogTarget } from "./console-capture.js";
import { createLogger } from "./logger.js";

/** What a step's context reads from its run's execution. */
export interface StepRun extends LogTarget {
  readonly run: { readonly id: string; readonly workflow: string; readonly attempt: number };
}

/** A {@link StepContext} for attempt `stepAttempt` of the step `stepName` of `exec`'s run. */
export class RunStepContext implements StepContext {
  readonly runId: RunId;
  readonly workflowName: string;
  readonly attempt: number;
  #logger: Logger | null = null;
  readonly #exec: StepRun;

  constructor(
    exec: StepRun,
    readonly stepName: string,
    readonly stepAttempt: number,
  ) {
    this.#exec = exec;
    this.runId = exec.run.id as RunId;
    this.workflowName = exec.run.workflow;
    this.attempt = exec.run.attempt;
  }

  /** Logger whose lines belong to this step (made on first use). */
  get logger(): Logger {
    return (this.#logger ??= createLogger(this.#exec, this.stepName));
  }
}
