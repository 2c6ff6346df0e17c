/**
 * Loops (`for`, `for…of`, `for…in`, `while`, `do…while`) as groups, never as cycles.
 *
 * A loop that matters to the diagram becomes a `loop` node; every node of its body names the loop in
 * `parent` and is `repeated`. Edges: into the loop node; `loop → first body node` labelled `body`;
 * from the body's last nodes (and `continue`s, `break`s) to whatever follows the loop; and
 * `loop → next` labelled `done` for the zero-iteration path (left out for `do…while` and for
 * `while (true)` / `for (;;)`, which only leave through `break`, `return` or `throw`).
 *
 * @module
 */
import ts from "typescript";
import type { Exit, Frontier } from "./graph.js";
import { clip } from "./source-text.js";
import type { Scope, Walker } from "./walker.js";

/** Walks a loop statement. */
export function walkLoop(w: Walker, loop: ts.IterationStatement, frontier: Frontier, scope: Scope): Frontier {
  let before = frontier;
  if (ts.isForStatement(loop) && loop.initializer !== undefined) before = w.expression(loop.initializer, before, scope);
  if (ts.isForOfStatement(loop) || ts.isForInStatement(loop)) before = w.expression(loop.expression, before, scope);
  const condition = ts.isForStatement(loop)
    ? loop.condition
    : ts.isWhileStatement(loop) || ts.isDoStatement(loop)
      ? loop.expression
      : undefined;
  const incrementor = ts.isForStatement(loop) ? loop.incrementor : undefined;
  const matters =
    w.flow.hasFlow(loop.statement) ||
    (condition !== undefined && w.flow.hasPrimitive(condition)) ||
    (incrementor !== undefined && w.flow.hasPrimitive(incrementor));
  if (!matters) return before;

  const { node } = w.structural(before, scope, "loop", headerOf(loop), loop);
  const breaks: Exit[] = [];
  const continues: Exit[] = [];
  const body: Scope = { ...scope, parent: node.id, repeated: true, breaks, continues };
  const counted = w.keys.snapshot();

  let inner: Frontier = [{ from: node.id, label: "body" }];
  const isDo = ts.isDoStatement(loop);
  if (!isDo && condition !== undefined) inner = w.expression(condition, inner, body);
  inner = w.statement(loop.statement, inner, body);
  if (incrementor !== undefined) inner = w.expression(incrementor, inner, body);
  if (isDo && condition !== undefined) inner = w.expression(condition, inner, body);
  w.keys.markChangedSince(counted);

  const exits: Exit[] = [];
  if (!isDo && !isInfinite(condition, loop)) exits.push({ from: node.id, label: "done" });
  exits.push(...inner, ...continues, ...breaks);
  return exits;
}

/** `while (true)` and `for (;;)`: no zero-iteration exit. */
function isInfinite(condition: ts.Expression | undefined, loop: ts.IterationStatement): boolean {
  if (ts.isForStatement(loop) && condition === undefined) return true;
  return condition !== undefined && condition.kind === ts.SyntaxKind.TrueKeyword;
}

/** The loop's header text: `for (const x of xs)`, `while (cond)`, `do … while (cond)`. */
function headerOf(loop: ts.IterationStatement): string {
  if (ts.isDoStatement(loop)) return clip(`do … while (${loop.expression.getText().replace(/\s+/g, " ")})`);
  const sourceFile = loop.getSourceFile();
  const text = sourceFile.text.slice(loop.getStart(sourceFile), loop.statement.getStart(sourceFile));
  return clip(text.replace(/\s+/g, " ").trim());
}
