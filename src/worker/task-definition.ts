import { SluiceError } from "../sdk/errors.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { markTerminal } from "./control.js";

/** A `task(fn)` child names a function its workflow's module does not have (any more). */
export class TaskFunctionMissingError extends SluiceError {
  constructor(workflow: string, task: string) {
    super(
      "TASK_FUNCTION_MISSING",
      `workflow ${JSON.stringify(workflow)} has no module-scope function ${JSON.stringify(task)} for this task: task(fn) needs a function declared at the top level of the workflow's module (or imported into it)`,
    );
  }
}

/**
 * The definition a `task(fn)` child runs: the function `task` of its workflow's module,
 * called with the child's arguments (the payload is the argument list).
 * @throws TaskFunctionMissingError
 */
export function taskDefinition(def: AnyWorkflow, task: string): AnyWorkflow {
  const fn = def.module?.functions.get(task);
  if (!fn) throw new TaskFunctionMissingError(def.name, task);
  return {
    ...def,
    // A task's own error is final (TaskError in the parent); only a lost worker costs an attempt.
    handler: async (payload: unknown) => {
      try {
        return await fn(
          ...(Array.isArray(payload) ? payload : payload === undefined || payload === null ? [] : [payload]),
        );
      } catch (err) {
        throw markTerminal(err);
      }
    },
  };
}
