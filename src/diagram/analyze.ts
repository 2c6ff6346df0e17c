/**
 * The analyser's entry point: parse, find the workflow, walk its body, return pure data.
 *
 * @module
 */
import ts from "typescript";
import { collectBindings } from "./bindings.js";
import { bindContext, chooseEntry, findEntries, plainMain, type FoundEntry } from "./entry.js";
import { walkNode } from "./expressions.js";
import type { Frontier } from "./graph.js";
import type { WorkflowDiagram, WorkflowEntry } from "./model.js";
import { parseSource } from "./parse.js";
import { endOf, startOf } from "./source-text.js";
import { walkStatement } from "./statements.js";
import { Walker, type Scope } from "./walker.js";

/** File name used when none is given. */
const DEFAULT_FILE_NAME = "workflow.ts";

/**
 * Builds the diagram of the workflow defined in a module's source: its tasks, steps, sleeps,
 * approvals, waits, parallel branches, loops and conditionals as a DAG of nodes and edges, from the
 * real TypeScript parser. Pure: no file system, no evaluation of the code, no layout.
 *
 * Code the analyser does not understand (unknown calls, dynamic names, callbacks) never makes it
 * throw: it draws what it can and explains the rest in `warnings`. A module without a workflow gives
 * `start → end` with a `NO_WORKFLOW` warning.
 *
 * @param source - the module's TypeScript (or JavaScript) source.
 * @param fileName - used for messages and to pick the dialect (`.tsx`, `.js`); default `workflow.ts`.
 * @throws {WorkflowSyntaxError} (`code` `DIAGRAM_SYNTAX_ERROR`, with `line`/`column`) when the source
 *   does not parse. Not retryable: fix the source.
 *
 * @example
 * ```ts
 * const diagram = analyzeWorkflowSource(`
 *   export const main = workflow(async (url: string) => {
 *     const data = await task(fetchData)(url);
 *     await sleep(5);
 *     return data;
 *   });`);
 * diagram.nodes.map((n) => n.id); // ["start", "task:fetchData", "sleep:sleep", "return:1", "end"]
 * ```
 */
export function analyzeWorkflowSource(source: string, fileName: string = DEFAULT_FILE_NAME): WorkflowDiagram {
  const sourceFile = parseSource(source, fileName);
  const bindings = collectBindings(sourceFile);
  const walker = new Walker(bindings, walkStatement, walkNode);

  const entries = findEntries(sourceFile, bindings);
  let entry = chooseEntry(entries);
  if (entries.length > 1 && entry !== undefined) {
    const others = entries.filter((other) => other !== entry).map((other) => other.name);
    walker.warn(
      "MULTIPLE_WORKFLOWS",
      `this module defines ${entries.length} workflows; drawing "${entry.name}" (not ${others.join(", ")}): put one workflow per module`,
      entry.fn,
    );
  }
  if (entry === undefined) {
    entry = plainMain(sourceFile);
    if (entry !== undefined) {
      walker.warn(
        "PLAIN_FUNCTION_ENTRY",
        "no workflow() or defineWorkflow() found; drawing the exported main function: wrap it in workflow(…) so it runs durably",
        entry.fn,
      );
    }
  }
  if (entry === undefined) {
    walker.warn(
      "NO_WORKFLOW",
      "no workflow found: export one with `export const main = workflow(async (…) => { … })` or `export default defineWorkflow(name, { handler })`",
    );
    const start = walker.graph.add({ kind: "start", label: "start", line: 1, column: 1 });
    const end = walker.graph.add({ kind: "end", label: "end", ...endOf(sourceFile) });
    walker.graph.connect([{ from: start.id }], end.id);
    return finish(fileName, null, walker);
  }

  bindContext(entry, bindings);
  const start = walker.graph.add({ kind: "start", label: entry.name, ...startOf(entry.fn) });
  const scope: Scope = { repeated: false, via: [], inlining: [entry.fn] };
  const body = entry.fn.body;
  let tail: Frontier = [{ from: start.id }];
  if (body !== undefined) {
    tail = ts.isBlock(body) ? walker.statements(body.statements, tail, scope) : walker.expression(body, tail, scope);
  }
  const end = walker.graph.add({ kind: "end", label: "end", ...endOf(entry.fn) });
  walker.graph.connect([...tail, ...walker.terminals], end.id);
  return finish(fileName, describeEntry(entry), walker);
}

function describeEntry(entry: FoundEntry): WorkflowEntry {
  return {
    name: entry.name,
    dialect: entry.dialect,
    params: entry.fn.parameters.map((parameter) => parameter.name.getText()),
    ...startOf(entry.fn),
    ...(entry.options === undefined ? {} : { options: entry.options }),
  };
}

function finish(fileName: string, workflow: WorkflowEntry | null, walker: Walker): WorkflowDiagram {
  return {
    version: 1,
    fileName,
    workflow,
    nodes: walker.graph.nodes,
    edges: walker.graph.edges,
    warnings: walker.warnings,
  };
}
