/**
 * Emitting the durable primitives: tasks, steps, sleeps, approvals, waits, and the terminal
 * `bail`/`fail`. Arguments are walked first (they are evaluated before the call).
 *
 * | call | node | key name |
 * | --- | --- | --- |
 * | `task(fn)(…)`, `task(fn, opts)(…)`, `task("path", fn, opts?)(…)`, `wrapper(…)` | task | function name |
 * | `taskScript(path, opts?)(…)`, `taskFlow(path, opts?)(…)` | task | path |
 * | `step(name, fn)`, `ctx.run(name, fn, opts?)` | step | `name` |
 * | `sleep(seconds)` | sleep | `sleep` |
 * | `ctx.sleep(name, ms)` | sleep | `name` |
 * | `waitForApproval(opts?)` | approval | `waitForApproval` |
 * | `ctx.waitFor(event, opts?)` | wait | `event` |
 *
 * @module
 */
import ts from "typescript";
import type { Primitive } from "./bindings.js";
import type { Frontier } from "./graph.js";
import { nameOf, optionsOf, shortText, stringLiteralText, toJson } from "./source-text.js";
import type { TaskWrapperInfo } from "./tasks.js";
import type { Scope, Walker } from "./walker.js";

/** The key name of an unnamed Windmill `sleep(seconds)`. */
const SLEEP_KEY = "sleep";
/** The key name of `waitForApproval(…)`. */
const APPROVAL_KEY = "waitForApproval";

/** Walks the arguments of `call` in order. */
export function walkArguments(w: Walker, call: ts.CallExpression, frontier: Frontier, scope: Scope): Frontier {
  let current = frontier;
  for (const argument of call.arguments) current = w.expression(argument, current, scope);
  return current;
}

/** Emits a task node for a task invocation (or a wrapper passed to `parallel`, `at` being the wrapper). */
export function emitTask(w: Walker, task: TaskWrapperInfo, at: ts.Node, frontier: Frontier, scope: Scope): Frontier {
  if (task.problem === "anonymous") {
    w.warn(
      "ANONYMOUS_TASK",
      `this task wraps an anonymous function, so its key is guessed as "${task.name}": pass a named function (task(myFn)) for a stable key`,
      at,
    );
  } else if (task.problem === "unresolved") {
    w.warn(
      "UNRESOLVED_TASK",
      `the task "${task.label}" is computed at run time, so its key is a guess: pass a named function or a literal path`,
      at,
    );
  }
  return w.primitive(frontier, scope, {
    kind: "task",
    label: task.label,
    name: task.name,
    exact: task.exact,
    at,
    extra: {
      taskType: task.taskType,
      ...(task.functionName === undefined ? {} : { functionName: task.functionName }),
      ...(task.path === undefined ? {} : { path: task.path }),
      ...(task.options === undefined ? {} : { options: task.options }),
    },
  }).frontier;
}

/**
 * Emits the node for a call to a primitive other than a task invocation, or returns `undefined` if
 * `primitive` produces no node of its own.
 */
export function walkPrimitive(
  w: Walker,
  primitive: Primitive,
  call: ts.CallExpression,
  frontier: Frontier,
  scope: Scope,
): Frontier | undefined {
  const [first, second, third] = call.arguments;
  switch (primitive) {
    case "step":
    case "ctx.run": {
      const { name, exact } = first === undefined ? { name: "step", exact: false } : nameOf(first);
      if (!exact) dynamicKey(w, "step", name, call);
      if (second !== undefined && w.flow.hasPrimitive(second)) {
        w.warn(
          "NESTED_PRIMITIVE",
          `step "${name}" runs its function inline as one checkpoint; durable calls inside it are not drawn (call them from the workflow instead)`,
          second,
        );
      }
      const options = primitive === "ctx.run" ? optionsOf(third) : undefined;
      return w.primitive(frontier, scope, {
        kind: "step",
        label: name,
        name,
        exact,
        at: call,
        extra: options === undefined ? {} : { options },
      }).frontier;
    }
    case "sleep": {
      const after = walkArguments(w, call, frontier, scope);
      const value = first === undefined ? null : toJson(first);
      const label =
        typeof value === "number" ? `sleep ${value}s` : `sleep(${first === undefined ? "" : shortText(first, 40)})`;
      return w.primitive(after, scope, {
        kind: "sleep",
        label,
        name: SLEEP_KEY,
        exact: true,
        at: call,
        extra: { duration: { value, unit: "s" } },
      }).frontier;
    }
    case "ctx.sleep": {
      const after = second === undefined ? frontier : w.expression(second, frontier, scope);
      const { name, exact } = first === undefined ? { name: "sleep", exact: false } : nameOf(first);
      if (!exact) dynamicKey(w, "sleep", name, call);
      const duration = { value: second === undefined ? null : toJson(second), unit: "ms" as const };
      return w.primitive(after, scope, { kind: "sleep", label: name, name, exact, at: call, extra: { duration } })
        .frontier;
    }
    case "waitForApproval": {
      const options = optionsOf(first);
      return w.primitive(frontier, scope, {
        kind: "approval",
        label: "approval",
        name: APPROVAL_KEY,
        exact: true,
        at: call,
        extra: options === undefined ? {} : { options },
      }).frontier;
    }
    case "ctx.waitFor": {
      const { name, exact } = first === undefined ? { name: "waitFor", exact: false } : nameOf(first);
      if (!exact) dynamicKey(w, "wait", name, call);
      const options = optionsOf(second);
      return w.primitive(frontier, scope, {
        kind: "wait",
        label: name,
        name,
        exact,
        at: call,
        extra: options === undefined ? {} : { options },
      }).frontier;
    }
    case "bail":
    case "fail": {
      const after = walkArguments(w, call, frontier, scope);
      const reason = stringLiteralText(first);
      const label = reason === undefined ? primitive : `${primitive}: ${reason}`;
      const { node } = w.structural(after, scope, primitive, label, call);
      w.terminals.push({ from: node.id });
      return [];
    }
    case "workflow":
    case "defineWorkflow":
      // A workflow defined inside the workflow is not run by it.
      return frontier;
    case "task":
    case "taskScript":
    case "taskFlow":
      // Creating a wrapper runs nothing; only its arguments might.
      return walkArguments(w, call, frontier, scope);
    case "parallel":
      return undefined;
  }
}

function dynamicKey(w: Walker, what: string, name: string, at: ts.Node): void {
  w.warn(
    "DYNAMIC_KEY",
    `this ${what}'s name "${name}" is computed at run time, so its key is approximate: use a literal name for a stable key`,
    at,
  );
}
