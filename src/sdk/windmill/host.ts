import { SluiceError } from "../errors.js";
import { currentScope } from "../runtime.js";
import type { WacHost } from "./types.js";

/** A workflows-as-code function was called outside a workflow run. */
export class NotInWorkflowError extends SluiceError {
  constructor(what: string) {
    super(
      "NOT_IN_WORKFLOW",
      `${what} can only be called while a workflow runs: wrap your entry point with workflow(...) (export const main = workflow(async (...) => { ... })) and run it with sluice`,
    );
  }
}

/** The execution running the calling code. @throws NotInWorkflowError outside a run */
export function requireHost(what: string): WacHost {
  const host = currentScope()?.execution as Partial<WacHost> | undefined;
  if (!host || typeof host.callTask !== "function") throw new NotInWorkflowError(what);
  return host as WacHost;
}
