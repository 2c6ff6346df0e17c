/**
 * The graph under construction: nodes with stable ids, and edges added from a *frontier* — the list
 * of open exits (`{ from, label }`) that flow into whatever node comes next.
 *
 * @module
 */
import type { DiagramEdge, DiagramNode, NodeKind } from "./model.js";

/** An open exit: control leaves node `from`, through an edge labelled `label`, to the next node. */
export interface Exit {
  /** Node the edge starts at. */
  readonly from: string;
  /** Edge label, when the edge needs one (`true`, `catch`, `done`, …). */
  readonly label?: string;
}

/** Where control can be after some code: every open exit. Empty means "does not continue". */
export type Frontier = readonly Exit[];

/** A node to add; the builder gives it an id. */
export type NodeSpec = Omit<DiagramNode, "id">;

/** Accumulates nodes and edges. */
export class GraphBuilder {
  /** Nodes in insertion (source) order. */
  readonly nodes: DiagramNode[] = [];
  /** Edges in insertion order, without duplicates. */
  readonly edges: DiagramEdge[] = [];
  private readonly ids = new Set<string>();
  private readonly ordinals = new Map<NodeKind, number>();
  private readonly edgeKeys = new Set<string>();

  /**
   * Adds a node. Its id is `start`/`end`, `<kind>:<key>` when it has a key, else `<kind>:<n>` with
   * `n` counting that kind from 1; a collision gets `~2`, `~3`, ….
   */
  add(spec: NodeSpec): DiagramNode {
    const defined = Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined)) as NodeSpec;
    const node: DiagramNode = { id: this.uniqueId(this.baseId(defined)), ...defined };
    this.ids.add(node.id);
    this.nodes.push(node);
    return node;
  }

  /** Adds a node and connects `frontier` to it; returns the frontier after it. */
  append(frontier: Frontier, spec: NodeSpec): { node: DiagramNode; frontier: Frontier } {
    const node = this.add(spec);
    this.connect(frontier, node.id);
    return { node, frontier: [{ from: node.id }] };
  }

  /** Adds one edge per exit of `frontier` to node `to` (duplicates are dropped). */
  connect(frontier: Frontier, to: string): void {
    for (const exit of frontier) {
      const key = `${exit.from}\u0000${to}\u0000${exit.label ?? ""}`;
      if (this.edgeKeys.has(key)) continue;
      this.edgeKeys.add(key);
      this.edges.push(exit.label === undefined ? { from: exit.from, to } : { from: exit.from, to, label: exit.label });
    }
  }

  private baseId(spec: NodeSpec): string {
    if (spec.kind === "start" || spec.kind === "end") return spec.kind;
    if (spec.key !== undefined) return `${spec.kind}:${spec.key}`;
    const n = (this.ordinals.get(spec.kind) ?? 0) + 1;
    this.ordinals.set(spec.kind, n);
    return `${spec.kind}:${n}`;
  }

  private uniqueId(base: string): string {
    if (!this.ids.has(base)) return base;
    let n = 2;
    while (this.ids.has(`${base}~${n}`)) n += 1;
    return `${base}~${n}`;
  }
}
