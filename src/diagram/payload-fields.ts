/**
 * The payload fields a `defineWorkflow` declares in its source (pure, static): the type
 * argument of `defineWorkflow<T>(…)`, or the annotation of the handler's first parameter,
 * when it is an object type literal, or an interface or type alias of one declared in the same
 * file. Only for showing what a run expects (the Start-a-run form); nothing is checked with it.
 */
import ts from "typescript";

/** Field names in declaration order, and those not marked optional (`?`). */
export interface PayloadFields {
  names: string[];
  required: string[];
}

function membersOf(node: ts.Node | undefined, file: ts.SourceFile): readonly ts.TypeElement[] | null {
  if (!node) return null;
  if (ts.isTypeLiteralNode(node) || ts.isInterfaceDeclaration(node)) return node.members;
  if (ts.isTypeAliasDeclaration(node)) return membersOf(node.type, file);
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && !node.typeArguments) {
    const name = node.typeName.text;
    const decl = file.statements.find(
      (s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name,
    );
    return decl ? membersOf(decl, file) : null;
  }
  return null;
}

function fieldsOf(members: readonly ts.TypeElement[]): PayloadFields | null {
  const names: string[] = [];
  const required: string[] = [];
  for (const m of members) {
    if (!ts.isPropertySignature(m) || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) return null;
    names.push(m.name.text);
    if (!m.questionToken) required.push(m.name.text);
  }
  return { names, required };
}

function handlerParamType(options: ts.Expression | undefined): ts.TypeNode | undefined {
  if (!options || !ts.isObjectLiteralExpression(options)) return undefined;
  for (const p of options.properties) {
    if (p.name && ts.isIdentifier(p.name) && p.name.text === "handler") {
      const fn = ts.isPropertyAssignment(p) ? p.initializer : ts.isMethodDeclaration(p) ? p : undefined;
      if (fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn) || ts.isMethodDeclaration(fn)))
        return fn.parameters[0]?.type;
    }
  }
  return undefined;
}

/** The payload fields of workflow `name` defined with `defineWorkflow` in `source`; null when not statically known. */
export function payloadFields(source: string, name: string): PayloadFields | null {
  const file = ts.createSourceFile("workflow.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let found: PayloadFields | null = null;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "defineWorkflow" &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      node.arguments[0].text === name
    ) {
      const members = membersOf(node.typeArguments?.[0], file) ?? membersOf(handlerParamType(node.arguments[1]), file);
      found = members ? fieldsOf(members) : null;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
