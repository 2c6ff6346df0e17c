/**
 * `task(fn)` may name any module-scope function of a workflow module, exported or
 * not. When bundling a module, Sluice appends an export listing those functions
 * (`__sluice_functions`) so a child run in another process can call the same function.
 */
import type TS from "typescript";
import { typescript } from "./typescript.js";

/** Name of the export appended to workflow modules. */
export const FUNCTION_TABLE_EXPORT = "__sluice_functions";

/**
 * Names to list: every top-level function (declared, or a `const` initialised with a
 * function) plus every top-level binding passed to `task(...)` (imported functions).
 */
export function moduleFunctionNames(source: string, fileName: string): string[] {
  const ts = typescript();
  const kind = /\.m?ts$/.test(fileName) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  const topLevel = new Set<string>();
  const functions = new Set<string>();
  for (const stmt of file.statements) {
    if (ts.isFunctionDeclaration(stmt) && stmt.name) {
      topLevel.add(stmt.name.text);
      if (!stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) functions.add(stmt.name.text);
    } else if (ts.isVariableStatement(stmt)) {
      for (const d of stmt.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        topLevel.add(d.name.text);
        const init = d.initializer && skipWrappers(d.initializer);
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) functions.add(d.name.text);
      }
    } else if (ts.isImportDeclaration(stmt) && stmt.importClause && !stmt.importClause.isTypeOnly) {
      const clause = stmt.importClause;
      if (clause.name) topLevel.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) if (!el.isTypeOnly) topLevel.add(el.name.text);
    }
  }
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && calleeName(node.expression) === "task") {
      const [first, second] = node.arguments;
      const fnArg = first && (ts.isStringLiteralLike(first) ? second : first);
      if (fnArg && ts.isIdentifier(fnArg) && topLevel.has(fnArg.text)) functions.add(fnArg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  functions.delete(FUNCTION_TABLE_EXPORT);
  return [...functions].sort();
}

/** Name of the export holding a bundle's project-relative module path. */
export const MODULE_PATH_EXPORT = "__sluice_module_path";

/** Source to append so a bundle exports its module path. */
export function modulePathSource(relPath: string): string {
  return `export const ${MODULE_PATH_EXPORT} = ${JSON.stringify(relPath)};\n`;
}

/** Source to append to a module so it exports its function table. */
export function functionTableSource(names: string[]): string {
  return `\nexport const ${FUNCTION_TABLE_EXPORT} = { ${names.map((n) => `${JSON.stringify(n)}: ${n}`).join(", ")} };\n`;
}

function calleeName(expr: TS.Expression): string | undefined {
  const ts = typescript();
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return undefined;
}

function skipWrappers(e: TS.Expression): TS.Expression {
  const ts = typescript();
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}
