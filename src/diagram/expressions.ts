/**
 * Expression walker: visits sub-expressions in evaluation order, skips function bodies that are
 * only defined here (they run when called), turns `c ? a : b`, `a && b`, `a || b` and `a ?? b`
 * whose arms call primitives into conditional forks, and hands calls to `calls.ts`.
 *
 * @module
 */
import ts from "typescript";
import { walkCall } from "./calls.js";
import { isFunctionLike } from "./flow.js";
import type { Frontier } from "./graph.js";
import { shortText } from "./source-text.js";
import type { Scope, Walker } from "./walker.js";

const SHORT_CIRCUIT: ReadonlyMap<ts.SyntaxKind, { arm: string; skip: string }> = new Map([
  [ts.SyntaxKind.AmpersandAmpersandToken, { arm: "true", skip: "false" }],
  [ts.SyntaxKind.BarBarToken, { arm: "false", skip: "true" }],
  [ts.SyntaxKind.QuestionQuestionToken, { arm: "nullish", skip: "defined" }],
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken, { arm: "true", skip: "false" }],
  [ts.SyntaxKind.BarBarEqualsToken, { arm: "false", skip: "true" }],
  [ts.SyntaxKind.QuestionQuestionEqualsToken, { arm: "nullish", skip: "defined" }],
]);

/** Walks any node inside an expression (or a variable declaration list) in evaluation order. */
export function walkNode(w: Walker, node: ts.Node, frontier: Frontier, scope: Scope): Frontier {
  if (frontier.length === 0 || !w.flow.hasPrimitive(node)) return frontier;
  if (ts.isCallExpression(node)) return walkCall(w, node, frontier, scope);
  if (ts.isConditionalExpression(node)) return walkConditional(w, node, frontier, scope);
  if (ts.isBinaryExpression(node)) {
    const shape = SHORT_CIRCUIT.get(node.operatorToken.kind);
    if (shape !== undefined && w.flow.hasPrimitive(node.right)) {
      const afterLeft = w.expression(node.left, frontier, scope);
      return w.branch(afterLeft, scope, `${shortText(node.left)} ${node.operatorToken.getText()}`, node, [
        { label: shape.arm, walk: (entry) => w.expression(node.right, entry, scope) },
        { label: shape.skip, walk: (entry) => entry },
      ]);
    }
  }
  // A function defined here runs later, when something calls it (helpers and callbacks are
  // inlined at their call sites by calls.ts).
  if (isFunctionLike(node) || ts.isClassLike(node)) return frontier;
  return walkChildren(w, node, frontier, scope);
}

/** Walks every child of `node` in source order. */
function walkChildren(w: Walker, node: ts.Node, frontier: Frontier, scope: Scope): Frontier {
  let current = frontier;
  ts.forEachChild(node, (child) => {
    current = w.expression(child, current, scope);
  });
  return current;
}

function walkConditional(w: Walker, node: ts.ConditionalExpression, frontier: Frontier, scope: Scope): Frontier {
  const afterCondition = w.expression(node.condition, frontier, scope);
  if (!w.flow.hasPrimitive(node.whenTrue) && !w.flow.hasPrimitive(node.whenFalse)) return afterCondition;
  return w.branch(afterCondition, scope, shortText(node.condition), node, [
    { label: "true", walk: (entry) => w.expression(node.whenTrue, entry, scope) },
    { label: "false", walk: (entry) => w.expression(node.whenFalse, entry, scope) },
  ]);
}
