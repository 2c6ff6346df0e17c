/**
 * Lays out a workflow diagram with ELK (layered, top to bottom). Loops and fan-outs
 * are drawn as a backdrop behind the group node and its body, sized from the laid-out
 * positions. ELK also routes the edges (orthogonal, between the layers, around the boxes;
 * edge labels get room of their own), and the diagram draws those routes as they are.
 * Returns absolute positions for React Flow.
 */
import ELK from "elkjs/lib/elk.bundled.js";
import type { ElkNode } from "elkjs/lib/elk-api";
import type { DiagramNode, WorkflowDiagram } from "../../../diagram/model";

/** A placed node. */
export interface PlacedNode {
  node: DiagramNode;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A group's backdrop (a loop or a fan-out with its body). */
export interface PlacedGroup {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  depth: number;
}

/** A point of the flow's plane. */
export interface Point {
  x: number;
  y: number;
}

/** A routed edge: ELK's route from the source's border to the target's, and its label's centre. */
export interface PlacedEdge {
  /** `e<i>` for the diagram's edge `i`. */
  id: string;
  /** Start, bend points, end; empty when ELK gave no route (then a straight line is drawn). */
  points: Point[];
  label: Point | null;
}

/** The laid-out diagram. */
export interface Layout {
  nodes: PlacedNode[];
  groups: PlacedGroup[];
  edges: PlacedEdge[];
}

const PRIMITIVES = new Set(["task", "step", "sleep", "approval", "wait"]);

/** The box size a node is drawn with. */
function nodeSize(node: DiagramNode): { width: number; height: number } {
  if (PRIMITIVES.has(node.kind)) return { width: 220, height: 58 };
  if (node.kind === "merge" || node.kind === "join") return { width: 18, height: 18 };
  if (node.kind === "start" || node.kind === "end") return { width: 92, height: 32 };
  return { width: Math.min(240, Math.max(110, node.label.length * 7 + 48)), height: 32 };
}

const elk = new ELK();
const GROUP_PAD = 14;

/** The room an edge label (`true`, `false`, `catch`…) takes: 11 px bold text plus its background's padding. */
function labelSize(text: string): { width: number; height: number } {
  return { width: text.length * 7 + 10, height: 18 };
}

/** Lays out `diagram`. */
export async function layoutDiagram(diagram: WorkflowDiagram): Promise<Layout> {
  const input: ElkNode = {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "DOWN",
      "elk.layered.spacing.nodeNodeBetweenLayers": "40",
      "elk.spacing.nodeNode": "26",
      "elk.spacing.edgeNode": "18",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.edgeRouting": "ORTHOGONAL",
      "elk.edgeLabels.placement": "CENTER",
      "elk.layered.spacing.edgeNodeBetweenLayers": "14",
    },
    children: diagram.nodes.map((n) => ({ id: n.id, ...nodeSize(n) })),
    edges: diagram.edges.map((e, i) => ({
      id: `e${i}`,
      sources: [e.from],
      targets: [e.to],
      ...(e.label ? { labels: [{ id: `e${i}:label`, text: e.label, ...labelSize(e.label) }] } : {}),
    })),
  };
  const graph = await elk.layout(input);
  const pos = new Map((graph.children ?? []).map((c) => [c.id, c]));
  const nodes = diagram.nodes.map((node) => {
    const p = pos.get(node.id)!;
    return { node, x: p.x ?? 0, y: p.y ?? 0, width: p.width ?? 0, height: p.height ?? 0 };
  });
  const edges = (graph.edges ?? []).map((e): PlacedEdge => {
    const section = e.sections?.[0];
    const label = e.labels?.[0];
    return {
      id: e.id,
      points: section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] : [],
      label:
        label && label.x !== undefined && label.y !== undefined
          ? { x: label.x + (label.width ?? 0) / 2, y: label.y + (label.height ?? 0) / 2 }
          : null,
    };
  });
  return { nodes, groups: groupBackdrops(nodes), edges };
}

/** One backdrop per group node, around the group node and every node inside it (nested groups included). */
function groupBackdrops(nodes: PlacedNode[]): PlacedGroup[] {
  const byId = new Map(nodes.map((n) => [n.node.id, n]));
  const members = new Map<string, PlacedNode[]>();
  const depthOf = (id: string): number => {
    let d = 0;
    for (let p = byId.get(id)?.node.parent; p; p = byId.get(p)?.node.parent) d++;
    return d;
  };
  for (const n of nodes) {
    for (let p = n.node.parent; p; p = byId.get(p)?.node.parent) {
      if (!members.has(p)) members.set(p, []);
      members.get(p)!.push(n);
    }
  }
  const groups: PlacedGroup[] = [];
  for (const [id, inside] of members) {
    const head = byId.get(id);
    if (!head) continue;
    const all = [head, ...inside];
    const depth = depthOf(id);
    const pad = GROUP_PAD - depth * 4;
    const x = Math.min(...all.map((n) => n.x)) - pad;
    const y = Math.min(...all.map((n) => n.y)) - pad;
    const right = Math.max(...all.map((n) => n.x + n.width)) + pad;
    const bottom = Math.max(...all.map((n) => n.y + n.height)) + pad;
    groups.push({
      id: `group:${id}`,
      label: head.node.kind === "loop" ? "loop" : "for each",
      x,
      y,
      width: right - x,
      height: bottom - y,
      depth,
    });
  }
  return groups.sort((a, b) => a.depth - b.depth);
}
