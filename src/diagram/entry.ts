/**
 * Finding the workflow entry in a module:
 *
 * - Windmill style: `export const main = workflow(async (…) => {…})`, `workflow(function …)`,
 *   `workflow(namedFn)`, `export default workflow(…)`;
 * - Tako style: `defineWorkflow(name, { handler })` (handler as arrow, function, method or a
 *   same-file function name) or `defineWorkflow(name, fn)`; the handler's second parameter is the
 *   context whose `run`/`sleep`/`waitFor`/`bail`/`fail` are primitives (destructuring works too);
 * - fallback, with a warning: an exported plain function `main`.
 *
 * When several are found, the one bound to `main` wins, then the default export, then the first.
 *
 * @module
 */
import ts from "typescript";
import { CONTEXT_MEMBERS, primitiveOf, type Bindings, type HelperFunction } from "./bindings.js";
import type { JsonValue, WorkflowDialect } from "./model.js";
import { stringLiteralText, toJson, unwrap } from "./source-text.js";

/** A workflow entry and the function that implements it. */
export interface FoundEntry {
  /** Binding name (`main`, `default`) or the `defineWorkflow` name. */
  name: string;
  /** The variable or export it is bound to (`main`, `default`, or `""` when unbound). */
  binding: string;
  /** Which API style. */
  dialect: WorkflowDialect;
  /** The handler function. */
  fn: HelperFunction;
  /** `defineWorkflow` options written inline besides the handler (`retries`, …). */
  options?: { [key: string]: JsonValue };
}

/** Every workflow entry declared at the top level of `sourceFile`, in source order. */
export function findEntries(sourceFile: ts.SourceFile, bindings: Bindings): FoundEntry[] {
  const found: FoundEntry[] = [];
  const consider = (expr: ts.Expression | undefined, binding: string): void => {
    if (expr === undefined) return;
    const entry = entryOf(unwrap(expr), binding, bindings);
    if (entry !== undefined) found.push(entry);
  };
  for (const statement of sourceFile.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        consider(declaration.initializer, ts.isIdentifier(declaration.name) ? declaration.name.text : "");
      }
    } else if (ts.isExportAssignment(statement)) {
      consider(statement.expression, "default");
    } else if (ts.isExpressionStatement(statement)) {
      consider(statement.expression, "");
    }
  }
  return found;
}

/** Picks the entry to draw: `main`, else `default`, else the first. */
export function chooseEntry(entries: readonly FoundEntry[]): FoundEntry | undefined {
  return (
    entries.find((entry) => entry.binding === "main") ??
    entries.find((entry) => entry.binding === "default") ??
    entries[0]
  );
}

/** An exported plain `main` function (`export async function main`, `export const main = async () => …`). */
export function plainMain(sourceFile: ts.SourceFile): FoundEntry | undefined {
  for (const statement of sourceFile.statements) {
    const exported =
      ts.canHaveModifiers(statement) &&
      (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === "main" && statement.body !== undefined) {
      return { name: "main", binding: "main", dialect: "function", fn: statement };
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer === undefined ? undefined : unwrap(declaration.initializer);
        if (
          ts.isIdentifier(declaration.name) &&
          declaration.name.text === "main" &&
          init !== undefined &&
          (ts.isArrowFunction(init) || ts.isFunctionExpression(init))
        ) {
          return { name: "main", binding: "main", dialect: "function", fn: init };
        }
      }
    }
  }
  return undefined;
}

/** Registers the Tako-style context parameter of `entry` (`ctx`, or `{ run, sleep }`) in `bindings`. */
export function bindContext(entry: FoundEntry, bindings: Bindings): void {
  if (entry.dialect !== "tako") return;
  const parameter = entry.fn.parameters[1];
  if (parameter === undefined) return;
  if (ts.isIdentifier(parameter.name)) {
    bindings.contexts.add(parameter.name.text);
    return;
  }
  if (ts.isObjectBindingPattern(parameter.name)) {
    for (const element of parameter.name.elements) {
      const member = element.propertyName ?? element.name;
      if (!ts.isIdentifier(member) || !ts.isIdentifier(element.name)) continue;
      const primitive = CONTEXT_MEMBERS.get(member.text);
      if (primitive !== undefined) bindings.primitives.set(element.name.text, primitive);
    }
  }
}

function entryOf(expr: ts.Expression, binding: string, bindings: Bindings): FoundEntry | undefined {
  if (!ts.isCallExpression(expr)) return undefined;
  const primitive = primitiveOf(expr.expression, bindings);
  if (primitive === "workflow") {
    const fn = lastFunction(expr.arguments, bindings);
    if (fn === undefined) return undefined;
    const named = stringLiteralText(expr.arguments[0]);
    return { name: binding || named || functionName(fn) || "workflow", binding, dialect: "windmill", fn };
  }
  if (primitive === "defineWorkflow") {
    const [nameArg, config] = expr.arguments;
    const fn = config === undefined ? undefined : handlerOf(unwrap(config), bindings);
    if (fn === undefined) return undefined;
    const options = config === undefined ? undefined : configOptions(unwrap(config));
    return {
      name: stringLiteralText(nameArg) ?? (binding || "workflow"),
      binding,
      dialect: "tako",
      fn,
      ...(options === undefined ? {} : { options }),
    };
  }
  return undefined;
}

function handlerOf(config: ts.Expression, bindings: Bindings): HelperFunction | undefined {
  const direct = asFunction(config, bindings);
  if (direct !== undefined) return direct;
  if (!ts.isObjectLiteralExpression(config)) return undefined;
  for (const property of config.properties) {
    const name = property.name !== undefined && ts.isIdentifier(property.name) ? property.name.text : undefined;
    if (name !== "handler") continue;
    if (ts.isMethodDeclaration(property) && property.body !== undefined) return property;
    if (ts.isPropertyAssignment(property)) return asFunction(unwrap(property.initializer), bindings);
    if (ts.isShorthandPropertyAssignment(property)) return bindings.functions.get(property.name.text);
  }
  return undefined;
}

function configOptions(config: ts.Expression): { [key: string]: JsonValue } | undefined {
  if (!ts.isObjectLiteralExpression(config)) return undefined;
  const options: { [key: string]: JsonValue } = {};
  for (const property of config.properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || property.name.text === "handler")
      continue;
    options[property.name.text] = toJson(property.initializer);
  }
  return Object.keys(options).length === 0 ? undefined : options;
}

function lastFunction(args: readonly ts.Expression[], bindings: Bindings): HelperFunction | undefined {
  for (let i = args.length - 1; i >= 0; i -= 1) {
    const arg = args[i];
    const fn = arg === undefined ? undefined : asFunction(unwrap(arg), bindings);
    if (fn !== undefined) return fn;
  }
  return undefined;
}

function asFunction(expr: ts.Expression, bindings: Bindings): HelperFunction | undefined {
  if (ts.isArrowFunction(expr) || ts.isFunctionExpression(expr)) return expr;
  if (ts.isIdentifier(expr)) return bindings.functions.get(expr.text);
  return undefined;
}

function functionName(fn: HelperFunction): string | undefined {
  return fn.name !== undefined && ts.isIdentifier(fn.name) ? fn.name.text : undefined;
}
