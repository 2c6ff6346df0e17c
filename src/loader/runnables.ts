/**
 * What a loaded module offers to run: Tako-style workflows (`defineWorkflow` exports,
 * named by their name), workflows as code (`main = workflow(...)`, named by path) and
 * scripts (a plain `main` export, named by path) — all as workflow definitions.
 */
import { type AnyWorkflow, defineWorkflow, isWorkflow, type WorkflowModule } from "../sdk/workflow.js";
import { isWacWorkflow } from "../sdk/windmill/workflow.js";
import { moduleName } from "../worker/script-paths.js";
import { FUNCTION_TABLE_EXPORT } from "./function-table.js";
import { argsFor, paramList } from "./params.js";

/** Every runnable a module exports; `file` is its project-relative path. */
export function runnablesOf(exports: Record<string, unknown>, file: string | null): AnyWorkflow[] {
  const out = new Set<AnyWorkflow>();
  for (const value of Object.values(exports)) if (isWorkflow(value)) out.add(value);
  const main = exports.main;
  if (typeof main === "function" && !isWorkflow(main) && file !== null) {
    const functions = new Map(Object.entries((exports[FUNCTION_TABLE_EXPORT] ?? {}) as Record<string, (...a: any[]) => unknown>));
    out.add(isWacWorkflow(main) ? wacDefinition(moduleName(file), main.fn, { path: file, functions }) : scriptDefinition(moduleName(file), main as (...a: any[]) => unknown, { path: file, functions }));
  }
  return [...out];
}

/**
 * A workflow-as-code entry as a definition: its payload is mapped to the function's
 * parameters by name. No run-level retries, as in Windmill (retry with `task` options
 * or in the orchestration code).
 */
export function wacDefinition(name: string, fn: (...args: any[]) => unknown, module: WorkflowModule): AnyWorkflow {
  const params = paramList(fn);
  return defineWorkflow(name, { retries: 0, module, handler: (payload) => fn(...argsFor(payload, params, name)) });
}

/** A script (a module's plain `main`) as a definition, run as a child by `taskScript` or directly. */
export function scriptDefinition(name: string, main: (...args: any[]) => unknown, module: WorkflowModule): AnyWorkflow {
  const params = paramList(main);
  return defineWorkflow(name, { retries: 0, module, handler: (payload) => main(...argsFor(payload, params, name)) });
}
