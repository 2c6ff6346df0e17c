/** The context a step body receives (`ctx.run`'s callback). */
import type { RunId } from "../core/ids.js";
import type { Logger, StepContext } from "../sdk/context.js";
import type { Execution } from "./execution.js";
import { createLogger } from "./logger.js";

/**
 * A step body's context, its `logger` built on first use as the workflow context's
 * (`context-impl.ts`): a class, since an object literal with a getter is a slow
 * dictionary-mode object in V8.
 */
class BodyContext implements StepContext {
  readonly runId: RunId;
  readonly workflowName: string;
  readonly attempt: number;
  readonly #exec: Execution;
  #logger: Logger | undefined;

  constructor(
    exec: Execution,
    readonly stepName: string,
    readonly stepAttempt: number,
  ) {
    this.#exec = exec;
    this.runId = exec.run.id as RunId;
    this.workflowName = exec.run.workflow;
    this.attempt = exec.run.attempt;
  }

  get logger(): Logger {
    return (this.#logger ??= createLogger(this.#exec, this.stepName));
  }
}

/** Builds the context of one step body's attempt. */
export function createStepContext(exec: Execution, key: string, stepAttempt: number): StepContext {
  return new BodyContext(exec, key, stepAttempt);
}
