/**
 * Small helpers over source text: 1-based positions, short labels, and options literals as JSON.
 *
 * @module
 */
import ts from "typescript";
import type { ExprValue, JsonValue, SourcePosition } from "./model.js";

/** Longest label kept before it is cut with an ellipsis. */
const MAX_LABEL = 80;

/** 1-based start position of `node` (after leading trivia). */
export function startOf(node: ts.Node): SourcePosition {
  const sourceFile = node.getSourceFile();
  const at = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
  return { line: at.line + 1, column: at.character + 1 };
}

/** 1-based position just after `node`. */
export function endOf(node: ts.Node): SourcePosition {
  const at = node.getSourceFile().getLineAndCharacterOfPosition(node.getEnd());
  return { line: at.line + 1, column: at.character + 1 };
}

/** Start and end of `node` in the shape diagram nodes use. */
export function spanOf(node: ts.Node): SourcePosition & { endLine: number; endColumn: number } {
  const end = endOf(node);
  return { ...startOf(node), endLine: end.line, endColumn: end.column };
}

/** `node`'s source text with runs of whitespace collapsed, cut to {@link MAX_LABEL} characters. */
export function shortText(node: ts.Node, max = MAX_LABEL): string {
  return clip(node.getText().replace(/\s+/g, " ").trim(), max);
}

/** Cuts `text` to `max` characters, ending with `…` when cut. */
export function clip(text: string, max = MAX_LABEL): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Removes parentheses, `as`/`satisfies`/`!`/`<T>` wrappers around an expression. */
export function unwrap(expr: ts.Expression): ts.Expression {
  let current = expr;
  for (;;) {
    if (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isNonNullExpression(current)) {
      current = current.expression;
    } else if (ts.isSatisfiesExpression(current) || ts.isTypeAssertionExpression(current)) {
      current = current.expression;
    } else {
      return current;
    }
  }
}

/** The literal text of a string or no-substitution template literal, else `undefined`. */
export function stringLiteralText(expr: ts.Expression | undefined): string | undefined {
  if (expr === undefined) return undefined;
  const inner = unwrap(expr);
  if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return inner.text;
  return undefined;
}

/**
 * A name for a computed key: literal text when static, else the source text (a template literal
 * keeps its `${…}` parts), and whether it is static.
 */
export function nameOf(expr: ts.Expression): { name: string; exact: boolean } {
  const literal = stringLiteralText(expr);
  if (literal !== undefined) return { name: literal, exact: true };
  const inner = unwrap(expr);
  if (ts.isTemplateExpression(inner)) return { name: inner.getText().slice(1, -1), exact: false };
  return { name: inner.getText(), exact: false };
}

/** Converts an expression to JSON: literals as themselves, anything else as `{ $expr: text }`. */
export function toJson(expr: ts.Expression): JsonValue {
  const inner = unwrap(expr);
  if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return inner.text;
  const number = foldNumber(inner);
  if (number !== undefined) return number;
  if (inner.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (inner.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (inner.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(inner) && inner.elements.every((element) => !ts.isSpreadElement(element))) {
    return inner.elements.map((element) => toJson(element));
  }
  if (ts.isObjectLiteralExpression(inner)) {
    const object = objectToJson(inner);
    if (object !== undefined) return object;
  }
  return expression(inner);
}

const ARITHMETIC: ReadonlyMap<ts.SyntaxKind, (a: number, b: number) => number> = new Map([
  [ts.SyntaxKind.PlusToken, (a: number, b: number) => a + b],
  [ts.SyntaxKind.MinusToken, (a: number, b: number) => a - b],
  [ts.SyntaxKind.AsteriskToken, (a: number, b: number) => a * b],
  [ts.SyntaxKind.SlashToken, (a: number, b: number) => a / b],
  [ts.SyntaxKind.AsteriskAsteriskToken, (a: number, b: number) => a ** b],
]);

/**
 * The value of a constant numeric expression (`3600`, `-1`, `24 * 60 * 60 * 1000`, `(2 ** 3) / 4`),
 * or `undefined` when it is not one (or is not finite).
 */
function foldNumber(expr: ts.Expression): number | undefined {
  const inner = unwrap(expr);
  let value: number | undefined;
  if (ts.isNumericLiteral(inner)) value = Number(inner.text);
  else if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.MinusToken) {
    const operand = foldNumber(inner.operand);
    value = operand === undefined ? undefined : -operand;
  } else if (ts.isBinaryExpression(inner)) {
    const op = ARITHMETIC.get(inner.operatorToken.kind);
    const left = op === undefined ? undefined : foldNumber(inner.left);
    const right = left === undefined ? undefined : foldNumber(inner.right);
    value = op === undefined || left === undefined || right === undefined ? undefined : op(left, right);
  }
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** Converts an object literal to JSON, or `undefined` if it has spreads, methods or computed keys. */
function objectToJson(literal: ts.ObjectLiteralExpression): { [key: string]: JsonValue } | undefined {
  const out: { [key: string]: JsonValue } = {};
  for (const property of literal.properties) {
    if (ts.isPropertyAssignment(property)) {
      const key = propertyKey(property.name);
      if (key === undefined) return undefined;
      out[key] = toJson(property.initializer);
    } else if (ts.isShorthandPropertyAssignment(property)) {
      out[property.name.text] = expression(property.name);
    } else {
      return undefined;
    }
  }
  return out;
}

/**
 * The options argument as a JSON object: an object literal's fields (non-literal ones as
 * `{ $expr }`), or `{ $expr: text }` wrapped as `{ $options: … }` when it is not a literal.
 */
export function optionsOf(expr: ts.Expression | undefined): { [key: string]: JsonValue } | undefined {
  if (expr === undefined) return undefined;
  const inner = unwrap(expr);
  if (ts.isObjectLiteralExpression(inner)) return objectToJson(inner) ?? { $options: expression(inner) };
  if (inner.kind === ts.SyntaxKind.UndefinedKeyword || (ts.isIdentifier(inner) && inner.text === "undefined"))
    return undefined;
  return { $options: expression(inner) };
}

function propertyKey(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

function expression(node: ts.Node): JsonValue {
  const value: ExprValue = { $expr: node.getText() };
  return { ...value };
}
