/**
 * The `ducklake()` helper calls of a TypeScript or JavaScript script, from the real TypeScript
 * parser's syntax tree (pure: the caller hands in the compiler API, which the runtime loads on
 * first use). A managed write from code (`ducklake("shop").upsertPartition("orders", rows)`,
 * `appendPartition`, and the Python spellings `upsert_partition` / `append_partition`) writes
 * `ducklake://shop/orders`; `read("orders")` reads it. The client is the call itself
 * (`wmill.ducklake("shop").read(…)`) or a variable initialised with it
 * (`const lake = wmill.ducklake()`, the lake `main`). Names are matched without scopes: a
 * variable bound to clients of two lakes is not followed. A lake or table name that is not a
 * string literal is only known at run time (reported as such).
 */
import type ts from "typescript";
import type { CodeFinding, CodeFindings } from "./detect-types.js";

/** Helper methods of a `ducklake()` client and what each does to its table. */
const LAKE_HELPERS: ReadonlyMap<string, "read" | "write"> = new Map([
  ["upsertPartition", "write"],
  ["appendPartition", "write"],
  ["upsert_partition", "write"],
  ["append_partition", "write"],
  ["read", "read"],
]);

/** The script kind of a file name (`.js`/`.mjs`/`.cjs` are JavaScript, the rest TypeScript). */
function scriptKind(api: typeof ts, fileName: string): ts.ScriptKind {
  return /\.[cm]?js$/i.test(fileName) ? api.ScriptKind.JS : api.ScriptKind.TS;
}

/** The text of a string literal with no substitutions, else undefined. */
function literal(api: typeof ts, e: ts.Expression | undefined): string | undefined {
  if (e && (api.isStringLiteral(e) || api.isNoSubstitutionTemplateLiteral(e))) return e.text;
  return undefined;
}

function unwrap(api: typeof ts, e: ts.Expression): ts.Expression {
  let x = e;
  while (api.isParenthesizedExpression(x) || api.isAsExpression(x) || api.isNonNullExpression(x)) x = x.expression;
  return x;
}

/**
 * The lake a `ducklake(...)` / `x.ducklake(...)` call opens: its literal name, `main` without
 * arguments, null when the name is computed; undefined when `e` is no such call.
 */
function clientLake(api: typeof ts, e: ts.Expression): string | null | undefined {
  const call = unwrap(api, e);
  if (!api.isCallExpression(call)) return undefined;
  const callee = unwrap(api, call.expression);
  const named =
    (api.isIdentifier(callee) && callee.text === "ducklake") ||
    (api.isPropertyAccessExpression(callee) && callee.name.text === "ducklake");
  if (!named) return undefined;
  if (call.arguments.length === 0) return "main";
  return literal(api, call.arguments[0]) ?? null;
}

/** Find the `ducklake()` helper calls of `source`. */
export function tsLakeCalls(api: typeof ts, source: string, fileName: string): CodeFindings {
  const file = api.createSourceFile(fileName, source, api.ScriptTarget.Latest, true, scriptKind(api, fileName));
  const lineOf = (n: ts.Node): number => file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1;
  // variables initialised with a client: name → its lakes (null: computed)
  const bound = new Map<string, Set<string | null>>();
  const bind = (node: ts.Node): void => {
    if (api.isVariableDeclaration(node) && api.isIdentifier(node.name) && node.initializer) {
      const lake = clientLake(api, node.initializer);
      if (lake !== undefined) bound.set(node.name.text, (bound.get(node.name.text) ?? new Set()).add(lake));
    }
    api.forEachChild(node, bind);
  };
  bind(file);
  const lakeOf = (e: ts.Expression): string | null | undefined => {
    const direct = clientLake(api, e);
    if (direct !== undefined) return direct;
    const x = unwrap(api, e);
    const lakes = api.isIdentifier(x) ? bound.get(x.text) : undefined;
    return lakes?.size === 1 ? [...lakes][0] : undefined;
  };
  const detections: CodeFinding[] = [];
  const dynamic: Array<{ line: number; via: string }> = [];
  const clients = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (api.isCallExpression(node)) {
      const callee = unwrap(api, node.expression);
      const access = api.isPropertyAccessExpression(callee) ? LAKE_HELPERS.get(callee.name.text) : undefined;
      const lake = access && api.isPropertyAccessExpression(callee) ? lakeOf(callee.expression) : undefined;
      if (access && lake && api.isPropertyAccessExpression(callee)) {
        const via = `ducklake().${callee.name.text}`;
        const table = literal(api, node.arguments[0]);
        clients.add(`ducklake://${lake}`);
        if (table !== undefined)
          detections.push({ uri: `ducklake://${lake}/${table}`, access, line: lineOf(node), via });
        else dynamic.push({ line: lineOf(node), via });
      }
    }
    api.forEachChild(node, visit);
  };
  visit(file);
  return { detections, dynamic, clients: [...clients], warnings: [] };
}
