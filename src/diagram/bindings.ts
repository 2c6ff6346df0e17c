/**
 * Which identifiers in a module mean which SDK primitive, which names are same-file helper
 * functions, and which variables hold task wrappers (`const extract = taskScript("f/x")`).
 *
 * Resolution is syntactic and file-wide (no type checker, no scopes below module level):
 * - a name imported from an SDK module (`windmill-client`, `wmill`, `sluice`, `tako.sh`) means the
 *   primitive it was imported as, aliases included; `import * as wmill` makes `wmill.task` work;
 * - a name imported from another project module is trusted the same way (re-exports are common),
 *   except from Node built-ins (`import { setTimeout as sleep } from "node:timers/promises"`);
 * - an unbound primitive name (snippets that lost their imports) still counts, unless the module
 *   declares that name itself (`async function sleep(ms) {…}`).
 *
 * @module
 */
import ts from "typescript";
import { unwrap } from "./source-text.js";

/** SDK functions and context methods the analyser understands. `ctx.*` are Tako-style context methods. */
export type Primitive =
  | "workflow"
  | "defineWorkflow"
  | "task"
  | "taskScript"
  | "taskFlow"
  | "step"
  | "sleep"
  | "waitForApproval"
  | "parallel"
  | "bail"
  | "fail"
  | "ctx.run"
  | "ctx.sleep"
  | "ctx.waitFor";

/** Exported SDK names recognised by their bare name. */
const SDK_NAMES: ReadonlySet<string> = new Set([
  "workflow",
  "defineWorkflow",
  "task",
  "taskScript",
  "taskFlow",
  "step",
  "sleep",
  "waitForApproval",
  "parallel",
]);

/** Names recognised only when imported from an SDK module (too generic to trust bare). */
const IMPORT_ONLY_NAMES: ReadonlySet<string> = new Set(["bail", "fail"]);

/** Context members, Tako style: `ctx.run`, `ctx.sleep`, `ctx.waitFor`, `ctx.bail`, `ctx.fail`. */
export const CONTEXT_MEMBERS: ReadonlyMap<string, Primitive> = new Map<string, Primitive>([
  ["run", "ctx.run"],
  ["sleep", "ctx.sleep"],
  ["waitFor", "ctx.waitFor"],
  ["bail", "bail"],
  ["fail", "fail"],
]);

/** A function the workflow may call and whose body the analyser can inline. */
export type HelperFunction = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

/** Module-wide name resolution for one source file. */
export interface Bindings {
  /** Local identifier → primitive it stands for. */
  readonly primitives: Map<string, Primitive>;
  /** Identifiers bound to a whole SDK module (`import * as wmill from "windmill-client"`). */
  readonly namespaces: Set<string>;
  /** Identifiers bound to a Tako-style workflow context (`ctx`). Filled in by the entry finder. */
  readonly contexts: Set<string>;
  /** Same-file functions by name (declarations and `const f = () => …`, at any depth; first wins). */
  readonly functions: Map<string, HelperFunction>;
  /** Variables initialised with a task wrapper: `const extract = taskScript("f/x")`. */
  readonly taskWrappers: Map<string, ts.CallExpression>;
}

/** Whether `specifier` is one of the SDK modules whose exports the analyser knows. */
function isSdkModule(specifier: string): boolean {
  return /^(windmill-client|wmill|sluice|tako\.sh)(\/|$)/.test(specifier) || specifier.startsWith("@windmill-labs/");
}

function isBuiltinModule(specifier: string): boolean {
  return (
    specifier.startsWith("node:") ||
    /^(timers|timers\/promises|util|events|fs|path|os|crypto|child_process)$/.test(specifier)
  );
}

/** Builds the bindings of `sourceFile`. */
export function collectBindings(sourceFile: ts.SourceFile): Bindings {
  const bindings: Bindings = {
    primitives: new Map(),
    namespaces: new Set(),
    contexts: new Set(),
    functions: new Map(),
    taskWrappers: new Map(),
  };
  const declared = new Set<string>();
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement)) collectImport(statement, bindings, declared);
    else for (const name of declaredNames(statement)) declared.add(name);
  }
  for (const name of SDK_NAMES) {
    if (!declared.has(name) && !bindings.primitives.has(name)) bindings.primitives.set(name, name as Primitive);
  }
  collectFunctionsAndWrappers(sourceFile, bindings);
  return bindings;
}

function collectImport(statement: ts.ImportDeclaration, bindings: Bindings, declared: Set<string>): void {
  const specifier = ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : "";
  const clause = statement.importClause;
  if (clause === undefined) return;
  const sdk = isSdkModule(specifier);
  if (clause.name !== undefined) {
    if (sdk) bindings.namespaces.add(clause.name.text);
    else declared.add(clause.name.text);
  }
  const named = clause.namedBindings;
  if (named === undefined) return;
  if (ts.isNamespaceImport(named)) {
    if (sdk) bindings.namespaces.add(named.name.text);
    else declared.add(named.name.text);
    return;
  }
  for (const element of named.elements) {
    const imported = (element.propertyName ?? element.name).text;
    const local = element.name.text;
    const known = SDK_NAMES.has(imported) || (sdk && IMPORT_ONLY_NAMES.has(imported));
    if (known && (sdk || !isBuiltinModule(specifier))) bindings.primitives.set(local, imported as Primitive);
    else declared.add(local);
  }
}

function declaredNames(statement: ts.Statement): string[] {
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined) {
    return [statement.name.text];
  }
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name));
  }
  return [];
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

function collectFunctionsAndWrappers(sourceFile: ts.SourceFile, bindings: Bindings): void {
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name !== undefined && node.body !== undefined) {
      if (!bindings.functions.has(node.name.text)) bindings.functions.set(node.name.text, node);
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      const init = unwrap(node.initializer);
      const name = node.name.text;
      if ((ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && !bindings.functions.has(name)) {
        bindings.functions.set(name, init);
      } else if (
        ts.isCallExpression(init) &&
        isWrapperFactory(init.expression, bindings) &&
        !bindings.taskWrappers.has(name)
      ) {
        bindings.taskWrappers.set(name, init);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
}

/** The primitive an expression in callee position stands for (`task`, `wmill.step`, `ctx.run`), if any. */
export function primitiveOf(callee: ts.Expression, bindings: Bindings): Primitive | undefined {
  const inner = unwrap(callee);
  if (ts.isIdentifier(inner)) return bindings.primitives.get(inner.text);
  if (ts.isPropertyAccessExpression(inner) && ts.isIdentifier(inner.expression)) {
    const owner = inner.expression.text;
    const member = inner.name.text;
    if (bindings.contexts.has(owner)) return CONTEXT_MEMBERS.get(member);
    if (bindings.namespaces.has(owner) && (SDK_NAMES.has(member) || IMPORT_ONLY_NAMES.has(member))) {
      return member as Primitive;
    }
  }
  return undefined;
}

/** Whether `callee` is `task`, `taskScript` or `taskFlow` (a call to it creates a task wrapper). */
function isWrapperFactory(callee: ts.Expression, bindings: Bindings): boolean {
  const primitive = primitiveOf(callee, bindings);
  return primitive === "task" || primitive === "taskScript" || primitive === "taskFlow";
}
