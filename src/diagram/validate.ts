/**
 * Structural checks of a {@link WorkflowDiagram}: the invariants the UI may rely on. Used by the
 * tests on every fixture; cheap enough to run in the UI before layout.
 *
 * @module
 */
import type { WorkflowDiagram } from "./model.js";

/**
 * Lists every broken invariant (empty when the diagram is well formed): unique ids; one `start`
 * (first) and one `end` (last); edges between existing nodes; no cycle; every node reachable from
 * `start`; `end` reachable from every node; `parent` naming an existing `loop` or dynamic
 * `parallel` node; `closes` naming an existing node; primitives (and only them) carrying a `key`.
 */
export function validateDiagram(diagram: WorkflowDiagram): string[] {
  const problems: string[] = [];
  const byId = new Map(diagram.nodes.map((node) => [node.id, node]));
  if (byId.size !== diagram.nodes.length) problems.push("node ids are not unique");
  if (diagram.nodes[0]?.kind !== "start") problems.push("the first node is not start");
  if (diagram.nodes.at(-1)?.kind !== "end") problems.push("the last node is not end");
  if (diagram.nodes.filter((node) => node.kind === "start" || node.kind === "end").length !== 2) {
    problems.push("there must be exactly one start and one end");
  }
  const out = new Map<string, string[]>();
  const into = new Map<string, string[]>();
  for (const edge of diagram.edges) {
    if (!byId.has(edge.from) || !byId.has(edge.to))
      problems.push(`edge ${edge.from} → ${edge.to} names a missing node`);
    out.set(edge.from, [...(out.get(edge.from) ?? []), edge.to]);
    into.set(edge.to, [...(into.get(edge.to) ?? []), edge.from]);
  }
  const start = diagram.nodes[0]?.id ?? "start";
  const end = diagram.nodes.at(-1)?.id ?? "end";
  const fromStart = reach(start, out);
  const toEnd = reach(end, into);
  for (const node of diagram.nodes) {
    if (!fromStart.has(node.id)) problems.push(`${node.id} is not reachable from start`);
    if (!toEnd.has(node.id)) problems.push(`end is not reachable from ${node.id}`);
    if (node.parent !== undefined) {
      const group = byId.get(node.parent);
      if (group === undefined || !(group.kind === "loop" || (group.kind === "parallel" && group.dynamic === true))) {
        problems.push(`${node.id} has parent ${node.parent}, which is not a loop or dynamic parallel node`);
      }
    }
    if (node.closes !== undefined && !byId.has(node.closes)) problems.push(`${node.id} closes missing ${node.closes}`);
    const primitive = ["task", "step", "sleep", "approval", "wait"].includes(node.kind);
    if (primitive !== (node.key !== undefined)) problems.push(`${node.id}: only primitives carry a key`);
  }
  if (
    hasCycle(
      diagram.nodes.map((node) => node.id),
      out,
    )
  )
    problems.push("the edges contain a cycle");
  return problems;
}

function reach(from: string, next: Map<string, string[]>): Set<string> {
  const seen = new Set([from]);
  const stack = [from];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    for (const to of next.get(id) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
    }
  }
  return seen;
}

/** Kahn's algorithm (iterative, so long chains cannot overflow the stack). */
function hasCycle(ids: readonly string[], out: Map<string, string[]>): boolean {
  const indegree = new Map(ids.map((id) => [id, 0]));
  for (const targets of out.values()) for (const to of targets) indegree.set(to, (indegree.get(to) ?? 0) + 1);
  const ready = [...indegree].filter(([, n]) => n === 0).map(([id]) => id);
  let removed = 0;
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    removed += 1;
    for (const to of out.get(id) ?? []) {
      const left = (indegree.get(to) ?? 0) - 1;
      indegree.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  return removed < indegree.size;
}
