/**
 * Reading task wrappers: `task(fn)`, `task(fn, opts)`, `task("path", fn)`, `task("path", fn, opts)`,
 * `taskScript(path, opts?)`, `taskFlow(path, opts?)`, and recognising their invocations, inline
 * (`task(fn)(x)`) or through a variable (`const extract = taskScript("f/x"); await extract(x)`).
 *
 * @module
 */
import ts from "typescript";
import { primitiveOf, type Bindings } from "./bindings.js";
import type { JsonValue, TaskType } from "./model.js";
import { nameOf, optionsOf, shortText, stringLiteralText, unwrap } from "./source-text.js";

/** What a task wrapper dispatches to, as far as the source says. */
export interface TaskWrapperInfo {
  /** `function` for `task(…)`, `script` for `taskScript`, `flow` for `taskFlow`. */
  taskType: TaskType;
  /** The name the checkpoint key is built from: function name, else path, else a fallback. */
  name: string;
  /** Diagram label. */
  label: string;
  /** The task function's name, when it has one. */
  functionName?: string;
  /** The explicit script/flow path. */
  path?: string;
  /** Inline options literal. */
  options?: { [key: string]: JsonValue };
  /** False when the name had to be guessed (anonymous function, computed path). */
  exact: boolean;
  /** Why the name is a guess, for a warning. */
  problem?: "anonymous" | "unresolved";
}

/**
 * Describes the wrapper created by `factory` (a call to `task`/`taskScript`/`taskFlow`).
 * `variableName` is the variable the wrapper is assigned to, used to name anonymous functions.
 */
function describeWrapper(factory: ts.CallExpression, bindings: Bindings, variableName?: string): TaskWrapperInfo {
  const primitive = primitiveOf(factory.expression, bindings);
  const args = factory.arguments;
  if (primitive === "taskScript" || primitive === "taskFlow") {
    const taskType: TaskType = primitive === "taskScript" ? "script" : "flow";
    const pathArg = args[0];
    const { name, exact } = pathArg === undefined ? { name: primitive, exact: false } : nameOf(pathArg);
    return withOptions(
      { taskType, name, label: name, path: name, exact, ...(exact ? {} : { problem: "unresolved" as const }) },
      args[1],
    );
  }
  const first = args[0];
  const explicitPath = stringLiteralText(first);
  const fnArg = explicitPath === undefined ? first : args[1];
  const optionsArg = explicitPath === undefined ? args[1] : args[2];
  const fn = functionNameOf(fnArg, variableName);
  const info: TaskWrapperInfo = {
    taskType: "function",
    name: fn.name,
    label: fn.name,
    exact: fn.exact,
    ...(fn.functionName === undefined ? {} : { functionName: fn.functionName }),
    ...(explicitPath === undefined ? {} : { path: explicitPath }),
    ...(fn.problem === undefined ? {} : { problem: fn.problem }),
  };
  return withOptions(info, optionsArg);
}

function withOptions(info: TaskWrapperInfo, optionsArg: ts.Expression | undefined): TaskWrapperInfo {
  const options = optionsOf(optionsArg);
  return options === undefined ? info : { ...info, options };
}

function functionNameOf(
  fnArg: ts.Expression | undefined,
  variableName: string | undefined,
): { name: string; exact: boolean; functionName?: string; problem?: "anonymous" | "unresolved" } {
  if (fnArg === undefined) return { name: variableName ?? "task", exact: false, problem: "unresolved" };
  const inner = unwrap(fnArg);
  if (ts.isIdentifier(inner)) return { name: inner.text, exact: true, functionName: inner.text };
  if (ts.isFunctionExpression(inner) && inner.name !== undefined) {
    return { name: inner.name.text, exact: true, functionName: inner.name.text };
  }
  if (ts.isArrowFunction(inner) || ts.isFunctionExpression(inner)) {
    return { name: variableName ?? "task", exact: false, problem: "anonymous" };
  }
  if (ts.isPropertyAccessExpression(inner)) {
    return { name: inner.name.text, exact: true, functionName: inner.name.text };
  }
  return { name: shortText(inner), exact: false, problem: "unresolved" };
}

/**
 * If `call` invokes a task (`task(fn)(x)`, `taskScript("p")(x)`, or a variable holding a wrapper),
 * returns the wrapper description; else `undefined`.
 */
export function taskInvocation(call: ts.CallExpression, bindings: Bindings): TaskWrapperInfo | undefined {
  const callee = unwrap(call.expression);
  if (ts.isCallExpression(callee)) {
    const primitive = primitiveOf(callee.expression, bindings);
    if (primitive === "task" || primitive === "taskScript" || primitive === "taskFlow") {
      return describeWrapper(callee, bindings);
    }
    return undefined;
  }
  if (ts.isIdentifier(callee)) {
    const factory = bindings.taskWrappers.get(callee.text);
    if (factory !== undefined) return describeWrapper(factory, bindings, callee.text);
  }
  return undefined;
}

/**
 * If `fn` (a `parallel` callback argument) is itself a task wrapper — `task(fn)` or a wrapper
 * variable — returns its description.
 */
export function wrapperValue(fn: ts.Expression, bindings: Bindings): TaskWrapperInfo | undefined {
  const inner = unwrap(fn);
  if (ts.isCallExpression(inner)) {
    const primitive = primitiveOf(inner.expression, bindings);
    if (primitive === "task" || primitive === "taskScript" || primitive === "taskFlow") {
      return describeWrapper(inner, bindings);
    }
  }
  if (ts.isIdentifier(inner)) {
    const factory = bindings.taskWrappers.get(inner.text);
    if (factory !== undefined) return describeWrapper(factory, bindings, inner.text);
  }
  return undefined;
}
