/**
 * Python files as workflow definitions: a `main` decorated with `@workflow` is a workflow
 * and a plain `main` a script, both named by path like TypeScript ones (`f/data/etl`,
 * `x__mod/extract`). A payload object maps onto `main`'s parameters by name; the
 * parameters and which have no default are published, so enqueue refuses a missing or
 * unknown argument in any process.
 */
import { checkArguments, type ParamSpec } from "../../core/params.js";
import { currentScope } from "../../sdk/runtime.js";
import { SluiceError } from "../../sdk/errors.js";
import { type AnyWorkflow, defineWorkflow } from "../../sdk/workflow.js";
import type { Execution } from "../../worker/execution.js";
import { moduleName } from "../../worker/script-paths.js";
import { WAC_MAX_ATTEMPTS } from "../runnables.js";
import { runPython, type PythonStart, type TaskFunctionFor } from "./driver.js";
import type { PythonHost } from "./host.js";
import type { PythonParam } from "./inspect.js";
import { pythonParamSpec } from "./param-types.js";

/** The `@task` functions of one Python file, by name, created on first use. */
class PythonTaskTable extends Map<string, (...args: any[]) => unknown> {
  constructor(private readonly make: (name: string) => (...args: any[]) => unknown) {
    super();
  }
  override get(name: string): ((...args: any[]) => unknown) | undefined {
    let fn = super.get(name);
    if (!fn) {
      fn = this.make(name);
      super.set(name, fn);
    }
    return fn;
  }
  override has(): boolean {
    return true;
  }
}

/** Arguments for Python's `main`: an object by name (checked), an array by position, nothing for null. */
function pythonArgs(payload: unknown, spec: ParamSpec | null, what: string): unknown[] | Record<string, unknown> {
  if (payload === undefined || payload === null) return {};
  if (Array.isArray(payload)) return payload;
  if (typeof payload !== "object") return [payload];
  if (spec) checkArguments(what, spec, payload);
  return payload as Record<string, unknown>;
}

/** Not inside a worker's execution (a bug: definitions are only run by the worker). */
class NoExecutionError extends SluiceError {
  constructor() {
    super("NOT_IN_WORKFLOW", "a Python run can only be executed by a Sluice worker");
  }
}

function currentExecution(): Execution {
  const exec = currentScope()?.execution as Execution | undefined;
  if (!exec || typeof exec.track !== "function") throw new NoExecutionError();
  return exec;
}

/** One code version of a Python file: its content hash and source. */
export interface PythonVersion {
  hash: string;
  source: string;
  /** Its `__mod/` companion modules (path in the folder → source), pinned with it. */
  modules?: Record<string, string>;
}

/** A Python workflow or script file, at one code version, as a definition run on `host`. */
export function pythonDefinition(
  host: PythonHost,
  root: string,
  file: string,
  kind: "workflow" | "script",
  params: PythonParam[] | null,
  code: PythonVersion,
): AnyWorkflow {
  const pinned = { version: code.hash, source: code.source, ...(code.modules && { modules: code.modules }) };
  const name = moduleName(file);
  const full = `${root}/${file}`;
  const spec = pythonParamSpec(params);
  const tasks: PythonTaskTable = new PythonTaskTable((fn) => {
    const run = (...args: unknown[]) =>
      runPython(host, currentExecution(), { kind: "task", file: full, fn, args, ...pinned }, taskFor);
    Object.defineProperty(run, "name", { value: fn });
    return run;
  });
  const taskFor: TaskFunctionFor = (fn) => tasks.get(fn)!;
  return defineWorkflow(name, {
    retries: WAC_MAX_ATTEMPTS - 1,
    module: { path: file, functions: tasks },
    params: spec,
    // Errors of the code are final (as for TypeScript); a Python process that dies is retried.
    handler: (payload: unknown) => {
      const start: PythonStart = { kind, file: full, args: pythonArgs(payload, spec, name), ...pinned };
      return runPython(host, currentExecution(), start, taskFor);
    },
  });
}
