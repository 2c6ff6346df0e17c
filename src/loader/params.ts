/**
 * Mapping a run's JSON payload onto a function's parameters by name (Windmill's
 * convention: `main(url, limit)` receives `{ "url": …, "limit": … }`). Parameter names
 * are read from the function's source with the TypeScript parser.
 */
import type * as TS from "typescript";
import { typescript } from "./typescript.js";
import { InvalidInputError } from "../sdk/errors.js";

/** A function's parameters: names in order, or null when they cannot be named (destructuring). */
export interface ParamList {
  names: string[] | null;
  /** Whether the last parameter is a rest parameter. */
  rest: boolean;
}

/** Reads the parameter names of `fn` from its source text. */
export function paramList(fn: (...args: any[]) => unknown): ParamList {
  const ts = typescript();
  const text = Function.prototype.toString.call(fn);
  const file = ts.createSourceFile("fn.js", `(${text})`, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  let found: TS.SignatureDeclarationBase | undefined;
  const visit = (node: TS.Node): void => {
    if (found) return;
    if (ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) {
      found = node;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!found) return { names: null, rest: false };
  const names: string[] = [];
  let rest = false;
  for (const p of found.parameters) {
    if (!ts.isIdentifier(p.name)) return { names: null, rest: false };
    names.push(p.name.text);
    if (p.dotDotDotToken) rest = true;
  }
  return { names, rest };
}

/**
 * Turns a payload into arguments: an array is positional; an object is matched to the
 * parameter names (missing ones are undefined, so defaults apply); null/undefined is no
 * arguments. A function whose parameters cannot be named receives the payload itself.
 * @throws InvalidInputError for keys that match no parameter
 */
export function argsFor(payload: unknown, params: ParamList, what: string): unknown[] {
  if (payload === undefined || payload === null) return [];
  if (Array.isArray(payload)) return payload;
  if (params.names === null || params.rest || typeof payload !== "object") return [payload];
  const obj = payload as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !params.names!.includes(k));
  if (unknown.length) {
    throw new InvalidInputError(
      `${what} has no parameter${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; it takes (${params.names.join(", ")})`,
      { code: "INVALID_ARGUMENTS" },
    );
  }
  return params.names.map((n) => obj[n]);
}
