/**
 * Deterministic topological ordering (Kahn's algorithm, ties broken by id) with a clear
 * error naming one cycle when there is no order.
 */
import { PipelineCycleError } from "./errors.js";

/** A directed edge between two node ids. */
export interface DirectedEdge {
  readonly from: string;
  readonly to: string;
}

function successors(edges: readonly DirectedEdge[], ids: ReadonlySet<string>): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const id of ids) next.set(id, []);
  for (const e of edges) if (ids.has(e.from) && ids.has(e.to)) next.get(e.from)?.push(e.to);
  return next;
}

/** One cycle among `ids` (a list that starts and ends with the same id), or `undefined`. */
export function findCycle(ids: Iterable<string>, edges: readonly DirectedEdge[]): string[] | undefined {
  const set = new Set(ids);
  const next = successors(edges, set);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, "open");
    stack.push(id);
    for (const to of [...(next.get(id) ?? [])].sort()) {
      if (state.get(to) === "open") return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of [...set].sort()) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Order `ids` so that every edge goes from an earlier to a later id; among ids that are
 * ready together, the smaller id comes first. Edges touching other ids are ignored.
 *
 * @throws PipelineCycleError (`PIPELINE_CYCLE`) naming one cycle when there is no order.
 */
export function topologicalOrder(ids: Iterable<string>, edges: readonly DirectedEdge[]): string[] {
  const set = new Set(ids);
  const next = successors(edges, set);
  const indegree = new Map<string, number>([...set].map((id) => [id, 0]));
  for (const targets of next.values()) for (const to of targets) indegree.set(to, (indegree.get(to) ?? 0) + 1);
  const ready = [...set].filter((id) => indegree.get(id) === 0).sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift() as string;
    order.push(id);
    for (const to of next.get(id) ?? []) {
      const left = (indegree.get(to) ?? 0) - 1;
      indegree.set(to, left);
      if (left === 0) {
        const at = ready.findIndex((r) => r > to);
        ready.splice(at === -1 ? ready.length : at, 0, to);
      }
    }
  }
  if (order.length < set.size) {
    const rest = [...set].filter((id) => !order.includes(id));
    throw new PipelineCycleError(findCycle(rest, edges) ?? rest);
  }
  return order;
}

/**
 * The longest chain of distinct nodes following the edges (ties: the first in `ids`
 * order). Edges that close a cycle are not followed, so it terminates on any graph.
 * @example longestPath(["a", "b", "c"], [{ from: "a", to: "b" }, { from: "b", to: "c" }]) // ["a", "b", "c"]
 */
export function longestPath(ids: Iterable<string>, edges: readonly DirectedEdge[]): string[] {
  const out = new Map<string, string[]>();
  for (const e of edges) if (e.from !== e.to) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const memo = new Map<string, string[]>();
  const onStack = new Set<string>();
  const walk = (id: string): string[] => {
    const known = memo.get(id);
    if (known) return known;
    onStack.add(id);
    let best: string[] = [];
    for (const next of out.get(id) ?? []) {
      if (onStack.has(next)) continue;
      const tail = walk(next);
      if (tail.length > best.length) best = tail;
    }
    onStack.delete(id);
    const path = [id, ...best];
    memo.set(id, path);
    return path;
  };
  let longest: string[] = [];
  for (const id of ids) {
    const p = walk(id);
    if (p.length > longest.length) longest = p;
  }
  return longest;
}
