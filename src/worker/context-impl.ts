import { toMillis } from "../core/duration.js";
import { InvalidDurationError } from "../core/errors.js";
import type { RunId } from "../core/ids.js";
import type { WorkflowContext } from "../sdk/context.js";
import type { Execution } from "./execution.js";
import { createLogger } from "./logger.js";
import { runStep, sleepFor, waitForEvent } from "./primitives.js";

/** Builds the `ctx` a Tako-style handler receives, bound to one execution. */
export function createWorkflowContext(exec: Execution): WorkflowContext {
  return {
    runId: exec.run.id as RunId,
    workflowName: exec.run.workflow,
    attempt: exec.run.attempt,
    logger: createLogger(exec, null),
    run: (name, fn, options) => runStep(exec, name, fn, options),
    sleep: async (name, duration) => {
      // `ctx.sleep("5m")` (the duration alone, as some SDKs take it) would name a sleep "5m" with no duration.
      if (duration === undefined)
        throw new InvalidDurationError(duration, {
          hint: `ctx.sleep takes a name and a duration: ctx.sleep("wait", ${JSON.stringify(name)}); the name keeps the sleep's place in the run's journal`,
        });
      return sleepFor(exec, name, toMillis(duration), exec.deps.inlineSleepMs);
    },
    waitFor: async (event, options) =>
      waitForEvent(exec, event, options?.timeout === undefined ? null : toMillis(options.timeout)),
    bail: (reason) => exec.noteBail(reason ?? null),
    fail: (error) => exec.noteFail(error),
  };
}
