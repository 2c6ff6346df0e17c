/**
 * Call expressions: primitives, parallelism and inlining.
 *
 * - task invocations and other primitives → `primitive-calls.ts`;
 * - `Promise.all([a, b])` (also `allSettled`, `race`, `any`) over an array literal → a `parallel`
 *   fork, one arm per element that calls a primitive, and a `join`;
 * - `parallel(items, fn, opts)`, `items.map(fn)` (also `flatMap`, `forEach`, `filter`, `Array.from`)
 *   with a callback that calls a primitive → a *dynamic* `parallel` group around the callback's
 *   nodes (`repeated`), and a `join`;
 * - an IIFE, a same-file helper function, or a `.then(cb)` callback → its body inlined in place;
 * - any other call → callee, then arguments; a callback argument that calls primitives is inlined
 *   as if called once, right there, with a warning.
 *
 * @module
 */
import ts from "typescript";
import { primitiveOf, type HelperFunction } from "./bindings.js";
import type { Frontier } from "./graph.js";
import { optionsOf, shortText, unwrap, endOf } from "./source-text.js";
import { emitTask, walkArguments, walkPrimitive } from "./primitive-calls.js";
import { taskInvocation, wrapperValue } from "./tasks.js";
import type { JsonValue } from "./model.js";
import type { Scope, Walker } from "./walker.js";

const COMBINATORS: ReadonlySet<string> = new Set(["all", "allSettled", "race", "any"]);
const FAN_OUT_METHODS: ReadonlySet<string> = new Set(["map", "flatMap", "forEach", "filter", "from"]);
const THEN_METHODS: ReadonlySet<string> = new Set(["then", "finally"]);

/** Walks a call expression whose subtree calls at least one primitive. */
export function walkCall(w: Walker, call: ts.CallExpression, frontier: Frontier, scope: Scope): Frontier {
  const task = taskInvocation(call, w.bindings);
  if (task !== undefined) return emitTask(w, task, call, walkArguments(w, call, frontier, scope), scope);

  const primitive = primitiveOf(call.expression, w.bindings);
  if (primitive === "parallel") return walkParallelPrimitive(w, call, frontier, scope);
  if (primitive !== undefined) {
    const after = walkPrimitive(w, primitive, call, frontier, scope);
    if (after !== undefined) return after;
  }

  const callee = unwrap(call.expression);
  if (isInlinable(callee)) return w.inline(callee, undefined, walkArguments(w, call, frontier, scope), scope);
  const helper = w.flow.helperOf(call);
  if (helper !== undefined && w.flow.helperHasPrimitive(helper.fn)) {
    return w.inline(helper.fn, helper.name, walkArguments(w, call, frontier, scope), scope);
  }
  if (ts.isPropertyAccessExpression(callee)) {
    const method = callee.name.text;
    if (ts.isIdentifier(callee.expression) && callee.expression.text === "Promise" && COMBINATORS.has(method)) {
      return walkCombinator(w, call, `Promise.${method}`, frontier, scope);
    }
    const callback = call.arguments.find((argument) => isInlinable(unwrap(argument)) && w.flow.hasPrimitive(argument));
    if (callback !== undefined && FAN_OUT_METHODS.has(method))
      return walkFanOutMethod(w, call, callee, frontier, scope);
    if (callback !== undefined && THEN_METHODS.has(method)) {
      const afterPromise = w.expression(callee.expression, frontier, scope);
      return w.inline(unwrap(callback) as HelperFunction, undefined, afterPromise, scope);
    }
  }
  return walkGenericCall(w, call, frontier, scope);
}

function walkGenericCall(w: Walker, call: ts.CallExpression, frontier: Frontier, scope: Scope): Frontier {
  let current = w.expression(call.expression, frontier, scope);
  for (const argument of call.arguments) {
    const inner = unwrap(argument);
    if (isInlinable(inner) && w.flow.hasPrimitive(inner)) {
      w.warn(
        "UNKNOWN_CALLBACK",
        `the callback passed to ${shortText(call.expression, 40)}(…) is drawn as if it ran once, right here: call primitives from the workflow body, or through parallel(), for an exact diagram`,
        argument,
      );
      current = w.inline(inner, undefined, current, scope);
    } else {
      current = w.expression(argument, current, scope);
    }
  }
  return current;
}

function walkCombinator(w: Walker, call: ts.CallExpression, label: string, frontier: Frontier, scope: Scope): Frontier {
  const argument = call.arguments[0];
  if (argument === undefined) return frontier;
  const list = unwrap(argument);
  if (!ts.isArrayLiteralExpression(list)) return w.expression(argument, frontier, scope);
  const elements = list.elements.filter((element) => w.flow.hasPrimitive(element));
  if (elements.length === 0) return frontier;
  const { node: fork } = w.structural(frontier, scope, "parallel", label, call, { dynamic: false });
  const exits = elements.flatMap((element) =>
    w.expression(ts.isSpreadElement(element) ? element.expression : element, [{ from: fork.id }], scope),
  );
  return join(w, exits, fork.id, call, scope);
}

function walkParallelPrimitive(w: Walker, call: ts.CallExpression, frontier: Frontier, scope: Scope): Frontier {
  const [items, fn, optionsArg] = call.arguments;
  const afterItems = items === undefined ? frontier : w.expression(items, frontier, scope);
  return fanOut(w, call, "parallel", afterItems, scope, optionsOf(optionsArg), (entry, group) => {
    if (fn === undefined) return entry;
    const wrapper = wrapperValue(fn, w.bindings);
    if (wrapper !== undefined) return emitTask(w, wrapper, fn, entry, group);
    const inner = unwrap(fn);
    if (isInlinable(inner)) return w.inline(inner, undefined, entry, group);
    if (ts.isIdentifier(inner)) {
      const helper = w.bindings.functions.get(inner.text);
      if (helper !== undefined) return w.inline(helper, inner.text, entry, group);
    }
    return entry;
  });
}

function walkFanOutMethod(
  w: Walker,
  call: ts.CallExpression,
  callee: ts.PropertyAccessExpression,
  frontier: Frontier,
  scope: Scope,
): Frontier {
  let current = w.expression(callee.expression, frontier, scope);
  const callbacks: HelperFunction[] = [];
  for (const argument of call.arguments) {
    const inner = unwrap(argument);
    if (isInlinable(inner) && w.flow.hasPrimitive(inner)) callbacks.push(inner);
    else current = w.expression(argument, current, scope);
  }
  const label = `${shortText(callee.expression, 40)}.${callee.name.text}`;
  return fanOut(w, call, label, current, scope, undefined, (entry, group) =>
    callbacks.reduce<Frontier>((at, callback) => w.inline(callback, undefined, at, group), entry),
  );
}

/** A dynamic `parallel` group: fork node, body nodes with `parent` = fork, then a `join`. */
function fanOut(
  w: Walker,
  call: ts.CallExpression,
  label: string,
  frontier: Frontier,
  scope: Scope,
  options: { [key: string]: JsonValue } | undefined,
  body: (entry: Frontier, group: Scope) => Frontier,
): Frontier {
  const { node: fork } = w.structural(frontier, scope, "parallel", label, call, {
    dynamic: true,
    ...(options === undefined ? {} : { options }),
  });
  const group: Scope = { ...scope, parent: fork.id, repeated: true };
  const counted = w.keys.snapshot();
  const exits = body([{ from: fork.id }], group);
  w.keys.markChangedSince(counted);
  return join(w, exits, fork.id, call, scope);
}

function join(w: Walker, exits: Frontier, fork: string, call: ts.CallExpression, scope: Scope): Frontier {
  const end = endOf(call);
  return w.structural(exits, scope, "join", "join", call, { closes: fork, line: end.line, column: end.column })
    .frontier;
}

function isInlinable(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}
