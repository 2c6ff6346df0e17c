/**
 * Mapping a run's JSON payload onto a function's parameters by name (Windmill's
 * convention: `main(url, limit)` receives `{ "url": …, "limit": … }`). Parameter names
 * are read from the function's source with the TypeScript parser.
 */
import type TS from "typescript";
import { checkArguments, type ParamSpec } from "../core/params.js";
import { typescript } from "./typescript.js";

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
    if (
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionDeclaration(node)
    ) {
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
 * @throws InvalidArgumentsError for keys that match no parameter
 */
export function argsFor(payload: unknown, params: ParamList, what: string): unknown[] {
  if (payload === undefined || payload === null) return [];
  if (Array.isArray(payload)) return payload;
  if (params.names === null || params.rest || typeof payload !== "object") return [payload];
  checkArguments(what, { names: params.names, required: [] }, payload);
  const obj = payload as Record<string, unknown>;
  return params.names.map((n) => obj[n]);
}

/**
 * The parameters an enqueue is checked against, or null when a payload is not mapped
 * by name (destructured or rest parameters). Which are required comes from the
 * module's TypeScript source (`main`'s parameters without `?` or a default), when it is
 * given and agrees with the function; otherwise none are required.
 */
export function paramSpec(fn: (...args: any[]) => unknown, source?: string | null): ParamSpec | null {
  const list = paramList(fn);
  if (list.names === null || list.rest) return null;
  const declared = source ? mainParamsOf(source) : null;
  const agrees =
    declared !== null && declared.length === list.names.length && declared.every((p, i) => p.name === list.names![i]);
  return { names: list.names, required: agrees ? declared.filter((p) => !p.optional).map((p) => p.name) : [] };
}

/**
 * The parameters of the module's exported `main` as written: `export function main(…)`,
 * `export const main = workflow((…) => …)` or `export const main = (…) => …`. Null when
 * `main` has another shape.
 */
export function mainParamsOf(source: string): Array<{ name: string; optional: boolean }> | null {
  const ts = typescript();
  const file = ts.createSourceFile("main.ts", source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let fn: TS.SignatureDeclarationBase | undefined;
  for (const st of file.statements) {
    if (ts.isFunctionDeclaration(st) && st.name?.text === "main") fn = st;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || d.name.text !== "main" || !d.initializer) continue;
        const init = ts.isCallExpression(d.initializer) ? d.initializer.arguments[0] : d.initializer;
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) fn = init;
      }
    }
  }
  if (!fn) return null;
  const out: Array<{ name: string; optional: boolean }> = [];
  for (const p of fn.parameters) {
    if (!ts.isIdentifier(p.name)) return null;
    out.push({ name: p.name.text, optional: Boolean(p.questionToken || p.initializer || p.dotDotDotToken) });
  }
  return out;
}
