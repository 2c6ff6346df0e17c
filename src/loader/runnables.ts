/**
 * What a loaded module offers to run: Tako-style workflows (`defineWorkflow` exports,
 * named by their name), workflows as code (`main = workflow(...)`, named by path) and
 * scripts (a plain `main` export, named by path) — all as workflow definitions.
 */
import { type AnyWorkflow, defineWorkflow, isWorkflow, type WorkflowModule } from "../sdk/workflow.js";
import { isWacWorkflow } from "../sdk/windmill/workflow.js";
import { moduleName } from "../worker/script-paths.js";
import { FUNCTION_TABLE_EXPORT } from "./function-table.js";
import { argsFor, paramList, paramSpec } from "./params.js";
import { markTerminal } from "../worker/control.js";

/**
 * Every runnable a module exports; `file` is its project-relative path and `source` its
 * TypeScript text when known (it tells which of `main`'s parameters are required).
 */
export function runnablesOf(
  exports: Record<string, unknown>,
  file: string | null,
  source: string | null = null,
): AnyWorkflow[] {
  const out = new Set<AnyWorkflow>();
  for (const value of Object.values(exports)) if (isWorkflow(value)) out.add(value);
  const main = exports.main;
  if (typeof main === "function" && !isWorkflow(main) && file !== null) {
    const functions = new Map(
      Object.entries((exports[FUNCTION_TABLE_EXPORT] ?? {}) as Record<string, (...a: any[]) => unknown>),
    );
    const module = { path: file, functions };
    out.add(
      isWacWorkflow(main)
        ? wacDefinition(moduleName(file), main.fn, module, source)
        : scriptDefinition(moduleName(file), main as (...a: any[]) => unknown, module, source),
    );
  }
  return [...out];
}

/**
 * Attempts a workflow-as-code run or script gets. As in Windmill, an error thrown by the
 * code is final (retry in the orchestration code, as the seed's backoff example does);
 * the extra attempts only cover a worker that dies mid-run.
 */
export const WAC_MAX_ATTEMPTS = 3;

/**
 * A workflow-as-code entry as a definition: its payload is mapped to the function's
 * parameters by name; errors fail the run at once (see {@link WAC_MAX_ATTEMPTS}).
 */
function wacDefinition(
  name: string,
  fn: (...args: any[]) => unknown,
  module: WorkflowModule,
  source: string | null = null,
): AnyWorkflow {
  const params = paramList(fn);
  return defineWorkflow(name, {
    retries: WAC_MAX_ATTEMPTS - 1,
    module,
    params: paramSpec(fn, source),
    handler: terminalOnError((payload) => fn(...argsFor(payload, params, name))),
  });
}

/** A script (a module's plain `main`) as a definition, run as a child by `taskScript` or directly. */
function scriptDefinition(
  name: string,
  main: (...args: any[]) => unknown,
  module: WorkflowModule,
  source: string | null = null,
): AnyWorkflow {
  const params = paramList(main);
  return defineWorkflow(name, {
    retries: WAC_MAX_ATTEMPTS - 1,
    module,
    params: paramSpec(main, source),
    handler: terminalOnError((payload) => main(...argsFor(payload, params, name))),
  });
}

/** Wraps a handler so whatever it throws fails the run without retry. */
function terminalOnError<P>(handler: (payload: P) => unknown): (payload: P) => Promise<unknown> {
  return async (payload) => {
    try {
      return await handler(payload);
    } catch (err) {
      throw markTerminal(err);
    }
  };
}
