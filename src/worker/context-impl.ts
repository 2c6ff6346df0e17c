import { toMillis } from "../core/duration.js";
import type { RunId } from "../core/ids.js";
import type { Logger, WorkflowContext } from "../sdk/context.js";
import type { Execution } from "./execution.js";
import { createLogger } from "./logger.js";
import { runStep, sleepFor, waitForEvent } from "./primitives.js";

/** Builds the `ctx` a Tako-style handler receives, bound to one execution. */
export function createWorkflowContext(exec: Execution): WorkflowContext {
  let logger: Logger | undefined;
  return {
    runId: exec.run.id as RunId,
    workflowName: exec.run.workflow,
    attempt: exec.run.attempt,
    // Built on first use: most handlers never log, and a claim of thousands builds thousands of contexts.
    get logger() {
      return (logger ??= createLogger(exec, null));
    },
    run: (name, fn, options) => runStep(exec, name, fn, options),
    sleep: async (name, duration) => sleepFor(exec, name, toMillis(duration), exec.deps.inlineSleepMs),
    waitFor: async (event, options) =>
      waitForEvent(exec, event, options?.timeout === undefined ? null : toMillis(options.timeout)),
    bail: (reason) => exec.noteBail(reason ?? null),
    fail: (error) => exec.noteFail(error),
  };
}
