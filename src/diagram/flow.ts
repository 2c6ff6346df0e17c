/**
 * Which parts of the source matter to the diagram. A construct that neither calls a durable
 * primitive nor changes control flow (`return`, `throw`, `break`, `continue`) is left out, so a
 * `for` loop that only builds an array, or an `if` that only logs, adds no boxes.
 *
 * @module
 */
import ts from "typescript";
import { primitiveOf, type Bindings, type HelperFunction, type Primitive } from "./bindings.js";
import { unwrap } from "./source-text.js";
import { taskInvocation } from "./tasks.js";

/** Primitives that produce a node (the wrapper factories and entry markers do not). */
const NODE_PRIMITIVES: ReadonlySet<Primitive> = new Set<Primitive>([
  "step",
  "sleep",
  "waitForApproval",
  "parallel",
  "bail",
  "fail",
  "ctx.run",
  "ctx.sleep",
  "ctx.waitFor",
]);

/** True for functions, arrows, methods, accessors and constructors. */
export function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isConstructorDeclaration(node)
  );
}

/** Memoised "does this matter to the diagram" questions about one module. */
export class FlowIndex {
  private readonly primitiveMemo = new Map<ts.Node, boolean>();
  private readonly flowMemo = new Map<ts.Node, boolean>();
  private readonly helpersInProgress = new Set<HelperFunction>();
  private readonly helperMemo = new Map<HelperFunction, boolean>();

  constructor(private readonly bindings: Bindings) {}

  /** The same-file helper a call invokes, if its callee is a plain identifier naming one. */
  helperOf(call: ts.CallExpression): { name: string; fn: HelperFunction } | undefined {
    const callee = unwrap(call.expression);
    if (!ts.isIdentifier(callee)) return undefined;
    const fn = this.bindings.functions.get(callee.text);
    return fn === undefined ? undefined : { name: callee.text, fn };
  }

  /** Whether `call` itself is a durable primitive that produces a node (not counting its arguments). */
  isNodeCall(call: ts.CallExpression): boolean {
    const primitive = primitiveOf(call.expression, this.bindings);
    if (primitive !== undefined && NODE_PRIMITIVES.has(primitive)) return true;
    return taskInvocation(call, this.bindings) !== undefined;
  }

  /** Whether calling the helper `fn` reaches a durable primitive (recursion counts as no). */
  helperHasPrimitive(fn: HelperFunction): boolean {
    if (fn.body === undefined || this.helpersInProgress.has(fn)) return false;
    const memo = this.helperMemo.get(fn);
    if (memo !== undefined) return memo;
    const outermost = this.helpersInProgress.size === 0;
    this.helpersInProgress.add(fn);
    try {
      const found = this.hasPrimitive(fn.body);
      // Only an outermost answer is final: inner ones may have been cut by the recursion guard.
      if (outermost) this.helperMemo.set(fn, found);
      return found;
    } finally {
      this.helpersInProgress.delete(fn);
    }
  }

  /** Whether `node` contains a durable primitive call, at any depth, following same-file helpers. */
  hasPrimitive(node: ts.Node): boolean {
    const memo = this.primitiveMemo.get(node);
    if (memo !== undefined) return memo;
    let found = false;
    if (ts.isCallExpression(node)) {
      if (this.isNodeCall(node)) found = true;
      else {
        const helper = this.helperOf(node);
        if (helper !== undefined && this.helperHasPrimitive(helper.fn)) found = true;
      }
    }
    if (!found) found = ts.forEachChild(node, (child) => (this.hasPrimitive(child) ? true : undefined)) === true;
    // Results computed while a helper is on the stack may be cut short by the recursion guard.
    if (this.helpersInProgress.size === 0) this.primitiveMemo.set(node, found);
    return found;
  }

  /** Whether `node` has primitives, or a `return`/`throw`/`break`/`continue` outside nested functions. */
  hasFlow(node: ts.Node): boolean {
    const memo = this.flowMemo.get(node);
    if (memo !== undefined) return memo;
    const found = this.hasPrimitive(node) || this.hasJump(node);
    this.flowMemo.set(node, found);
    return found;
  }

  private hasJump(node: ts.Node): boolean {
    if (
      ts.isReturnStatement(node) ||
      ts.isThrowStatement(node) ||
      ts.isBreakStatement(node) ||
      ts.isContinueStatement(node)
    ) {
      return true;
    }
    if (isFunctionLike(node) || ts.isClassLike(node)) return false;
    return ts.forEachChild(node, (child) => (this.hasJump(child) ? true : undefined)) === true;
  }
}
