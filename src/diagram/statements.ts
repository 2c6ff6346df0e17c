/**
 * Statement walker: sequence, `if`/`else`, `switch`, `return`, `throw`, jumps and `try`; loops live
 * in `loops.ts`. Each function takes the frontier before the statement and returns the one after.
 *
 * @module
 */
import ts from "typescript";
import type { Exit, Frontier } from "./graph.js";
import type { KeySnapshot } from "./keys.js";
import { walkLoop } from "./loops.js";
import { shortText } from "./source-text.js";
import type { Arm, Scope, Walker } from "./walker.js";

/** Walks one statement. */
export function walkStatement(w: Walker, statement: ts.Statement, frontier: Frontier, scope: Scope): Frontier {
  if (frontier.length === 0) return frontier;
  if (ts.isBlock(statement)) return w.statements(statement.statements, frontier, scope);
  if (ts.isExpressionStatement(statement)) return w.expression(statement.expression, frontier, scope);
  if (ts.isVariableStatement(statement)) return w.expression(statement.declarationList, frontier, scope);
  if (ts.isReturnStatement(statement)) return walkReturn(w, statement, frontier, scope);
  if (ts.isThrowStatement(statement)) return walkThrow(w, statement, frontier, scope);
  if (ts.isIfStatement(statement)) return walkIf(w, statement, frontier, scope);
  if (ts.isSwitchStatement(statement)) return walkSwitch(w, statement, frontier, scope);
  if (ts.isTryStatement(statement)) return walkTry(w, statement, frontier, scope);
  if (ts.isIterationStatement(statement, false)) return walkLoop(w, statement, frontier, scope);
  if (ts.isBreakStatement(statement) || ts.isContinueStatement(statement))
    return walkJump(w, statement, frontier, scope);
  if (ts.isLabeledStatement(statement)) return w.statement(statement.statement, frontier, scope);
  // Declarations (functions, classes, types, imports) and empty statements run nothing here.
  return frontier;
}

function walkReturn(w: Walker, statement: ts.ReturnStatement, frontier: Frontier, scope: Scope): Frontier {
  const after = statement.expression === undefined ? frontier : w.expression(statement.expression, frontier, scope);
  if (scope.returns !== undefined) {
    scope.returns.push(...after);
    scope.returnKeys?.push(w.keys.snapshot());
    return [];
  }
  const { node } = w.structural(after, scope, "return", "return", statement);
  w.terminals.push({ from: node.id });
  return [];
}

function walkThrow(w: Walker, statement: ts.ThrowStatement, frontier: Frontier, scope: Scope): Frontier {
  const after = w.expression(statement.expression, frontier, scope);
  const { node } = w.structural(after, scope, "throw", `throw ${shortText(statement.expression, 60)}`, statement);
  if (scope.catches !== undefined) scope.catches.push({ from: node.id, label: "throw" });
  else w.terminals.push({ from: node.id, label: "error" });
  return [];
}

function walkJump(
  w: Walker,
  statement: ts.BreakStatement | ts.ContinueStatement,
  frontier: Frontier,
  scope: Scope,
): Frontier {
  const isBreak = ts.isBreakStatement(statement);
  if (statement.label !== undefined) {
    w.warn(
      "LABELED_JUMP",
      `\`${statement.getText()}\` is drawn as if it jumped out of the innermost ${isBreak ? "loop or switch" : "loop"}`,
      statement,
    );
  }
  const target = isBreak ? scope.breaks : scope.continues;
  const label = isBreak ? "break" : "continue";
  if (target === undefined) return frontier;
  target.push(...frontier.map((exit): Exit => ({ from: exit.from, label: exit.label ?? label })));
  return [];
}

function walkIf(w: Walker, statement: ts.IfStatement, frontier: Frontier, scope: Scope): Frontier {
  const afterCondition = w.expression(statement.expression, frontier, scope);
  if (
    !w.flow.hasFlow(statement.thenStatement) &&
    (statement.elseStatement === undefined || !w.flow.hasFlow(statement.elseStatement))
  ) {
    return afterCondition;
  }
  const otherwise = statement.elseStatement;
  const arms: Arm[] = [
    { label: "true", walk: (entry) => w.statement(statement.thenStatement, entry, scope) },
    { label: "false", walk: (entry) => (otherwise === undefined ? entry : w.statement(otherwise, entry, scope)) },
  ];
  return w.branch(afterCondition, scope, shortText(statement.expression), statement, arms);
}

function walkSwitch(w: Walker, statement: ts.SwitchStatement, frontier: Frontier, scope: Scope): Frontier {
  const afterSubject = w.expression(statement.expression, frontier, scope);
  if (!w.flow.hasFlow(statement.caseBlock)) return afterSubject;
  const label = `switch (${shortText(statement.expression, 60)})`;
  const { node } = w.structural(afterSubject, scope, "branch", label, statement);
  const breaks: Exit[] = [];
  const inner: Scope = { ...scope, breaks };
  const base = w.keys.snapshot();
  const ends: KeySnapshot[] = [];
  // A clause that does not break falls into the next one (and keeps counting keys along that path).
  let fallthrough: Frontier = [];
  for (const clause of statement.caseBlock.clauses) {
    if (fallthrough.length === 0) w.keys.restore(base);
    const edge = ts.isCaseClause(clause) ? `case ${shortText(clause.expression, 40)}` : "default";
    fallthrough = w.statements(clause.statements, [...fallthrough, { from: node.id, label: edge }], inner);
    if (fallthrough.length === 0) ends.push(w.keys.snapshot());
  }
  if (fallthrough.length > 0) ends.push(w.keys.snapshot());
  // `break` is the ordinary way out of a switch: its edge needs no label.
  const exits: Exit[] = [
    ...breaks.map((exit) => (exit.label === "break" ? { from: exit.from } : exit)),
    ...fallthrough,
  ];
  if (!statement.caseBlock.clauses.some((clause) => ts.isDefaultClause(clause))) {
    exits.push({ from: node.id, label: "default" });
    ends.push(base);
  }
  w.keys.join(ends);
  return w.merge(exits, node.id, statement, scope);
}

function walkTry(w: Walker, statement: ts.TryStatement, frontier: Frontier, scope: Scope): Frontier {
  if (!w.flow.hasFlow(statement)) return frontier;
  const { node: tryNode } = w.structural(frontier, scope, "try", "try", statement.tryBlock);
  const clause = statement.catchClause;
  const catches: Exit[] = [];
  const before = w.keys.snapshot();
  const tryScope: Scope = clause === undefined ? scope : { ...scope, catches };
  const exits: Exit[] = [
    ...w.statements(statement.tryBlock.statements, [{ from: tryNode.id, label: "try" }], tryScope),
  ];
  // The try block may stop at any primitive, so its names' counts are unknown from here on.
  w.keys.markChangedSince(before);
  if (clause !== undefined) {
    const label =
      clause.variableDeclaration === undefined ? "catch" : `catch (${shortText(clause.variableDeclaration.name, 40)})`;
    const { node: catchNode } = w.structural(
      [{ from: tryNode.id, label: "catch" }, ...catches],
      scope,
      "catch",
      label,
      clause,
    );
    exits.push(...w.statements(clause.block.statements, [{ from: catchNode.id }], scope));
  }
  const merged = w.merge(exits, tryNode.id, statement.catchClause ?? statement.tryBlock, scope);
  return statement.finallyBlock === undefined ? merged : w.statements(statement.finallyBlock.statements, merged, scope);
}
