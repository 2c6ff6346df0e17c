/**
 * Helpers shared by the diagram tests (no test-framework imports, so it type-checks with the rest):
 * compact edge notation and lookups.
 *
 * @module
 */
import { analyzeWorkflowSource } from "./analyze.js";
import { readFixture, type FixtureName } from "./fixtures.js";
import type { DiagramNode, WorkflowDiagram } from "./model.js";

/** Analyses a fixture under its own file name. */
export function analyzeFixture(name: FixtureName): WorkflowDiagram {
  return analyzeWorkflowSource(readFixture(name), `${name}.ts`);
}

/** Edges as `from -> to` or `from -[label]-> to`, in insertion order. */
export function edgeList(diagram: WorkflowDiagram): string[] {
  return diagram.edges.map((edge) =>
    edge.label === undefined ? `${edge.from} -> ${edge.to}` : `${edge.from} -[${edge.label}]-> ${edge.to}`,
  );
}

/** Node ids in order. */
export function ids(diagram: WorkflowDiagram): string[] {
  return diagram.nodes.map((node) => node.id);
}

/** The node with `id`; throws when absent so a test fails with a clear message. */
export function nodeById(diagram: WorkflowDiagram, id: string): DiagramNode {
  const node = diagram.nodes.find((candidate) => candidate.id === id);
  if (node === undefined) throw new Error(`no node ${id}; nodes are ${ids(diagram).join(", ")}`);
  return node;
}

/** Warning codes in order. */
export function warningCodes(diagram: WorkflowDiagram): string[] {
  return diagram.warnings.map((warning) => warning.code);
}

/**
 * A straight chain `a -> b -> c` as edges, for sequential parts of a diagram.
 * @example chain("start", "task:a", "end") gives ["start -> task:a", "task:a -> end"].
 */
export function chain(...nodeIds: string[]): string[] {
  return nodeIds.slice(1).map((to, index) => `${nodeIds[index]} -> ${to}`);
}
