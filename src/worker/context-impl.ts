import { toMillis } from "../core/duration.js";
import { InvalidDurationError } from "../core/errors.js";
import type { RunId } from "../core/ids.js";
import type { Logger, WorkflowContext } from "../sdk/context.js";
import type { Execution } from "./execution.js";
import { createLogger } from "./logger.js";
import { runStep, sleepFor, waitForEvent } from "./primitives.js";

/**
 * The `ctx` of a Tako-style handler. A class, not an object literal: its `logger` is built on
 * first use (most handlers never log, and a claim of thousands builds thousands of contexts),
 * and an object literal with a getter is a slow dictionary-mode object in V8. `logger` is
 * therefore a getter of the prototype; every other member is an own property, the methods
 * bound closures (`const { run } = ctx` keeps working).
 */
class TakoContext implements WorkflowContext {
  readonly runId: RunId;
  readonly workflowName: string;
  readonly attempt: number;
  readonly run: WorkflowContext["run"];
  readonly sleep: WorkflowContext["sleep"];
  readonly waitFor: WorkflowContext["waitFor"];
  readonly bail: WorkflowContext["bail"];
  readonly fail: WorkflowContext["fail"];
  readonly #exec: Execution;
  #logger: Logger | undefined;

  constructor(exec: Execution) {
    this.#exec = exec;
    this.runId = exec.run.id as RunId;
    this.workflowName = exec.run.workflow;
    this.attempt = exec.run.attempt;
    this.run = (name, fn, options) => runStep(exec, name, fn, options);
    this.sleep = async (name, duration) => {
      // `ctx.sleep("5m")` (the duration alone, as some SDKs take it) would name a sleep "5m" with no duration.
      if (duration === undefined)
        throw new InvalidDurationError(duration, {
          hint: `ctx.sleep takes a name and a duration: ctx.sleep("wait", ${JSON.stringify(name)}); the name keeps the sleep's place in the run's journal`,
        });
      return sleepFor(exec, name, toMillis(duration), exec.deps.inlineSleepMs);
    };
    this.waitFor = async (event, options) =>
      waitForEvent(exec, event, options?.timeout === undefined ? null : toMillis(options.timeout));
    this.bail = (reason) => exec.noteBail(reason ?? null);
    this.fail = (error) => exec.noteFail(error);
  }

  get logger(): Logger {
    return (this.#logger ??= createLogger(this.#exec, null));
  }
}

/** Builds the `ctx` a Tako-style handler receives, bound to one execution. */
export function createWorkflowContext(exec: Execution): WorkflowContext {
  return new TakoContext(exec);
}
