/**
 * The workflow diagram: the DAG parsed from the workflow's source (tasks, steps, sleeps,
 * approvals, branches, fan-outs, loops), laid out and its edges routed by ELK, drawn with
 * React Flow. On a run page each node is coloured by its live status.
 */
import {
  Background,
  BaseEdge,
  Controls,
  type Edge,
  type EdgeProps,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import type { DiagramNode, WorkflowDiagram } from "../../../diagram/model";
import type { NodeState } from "../lib/diagram-status";
import { layoutDiagram, type Layout, type PlacedEdge } from "../lib/diagram-layout";
import { statusLabel } from "../lib/status";

type NodeData = { node: DiagramNode; state: NodeState | null; live: boolean };
type GroupData = { label: string };
type RouteData = { route: PlacedEdge | undefined };

const KIND: Record<string, string> = {
  task: "Task",
  step: "Step",
  sleep: "Sleep",
  approval: "Approval",
  wait: "Wait for event",
};

function detail(n: DiagramNode): string | null {
  if (n.kind === "sleep" && n.duration) return `${JSON.stringify(n.duration.value)} ${n.duration.unit}`;
  if (n.kind === "task" && n.path) return n.path;
  if (n.kind === "approval" && n.options && "timeout" in n.options)
    return `timeout ${JSON.stringify(n.options.timeout)} s`;
  return null;
}

const PrimitiveNode = memo(function PrimitiveNode({ data }: NodeProps<Node<NodeData>>) {
  const { node, state, live } = data;
  const status = state?.status ?? (live ? "idle" : null);
  const extra = detail(node);
  return (
    <div
      className={`dg-node dg-prim kind-${node.kind}${status ? ` st-${status}` : ""}`}
      data-node={node.id}
      data-status={status ?? ""}
      title={status ? statusLabel(status) : node.label}
    >
      <Handle type="target" position={Position.Top} />
      <div className="dg-top">
        <span className="dg-kind">{KIND[node.kind] ?? node.kind}</span>
        {node.repeated ? (
          <span className="dg-rep" title="runs once per item or iteration">
            ×{state && state.count > 1 ? state.count : "n"}
          </span>
        ) : null}
        {status && live ? <span className="dg-state">{statusLabel(status)}</span> : null}
      </div>
      <div className="dg-label" title={node.label}>
        {node.label}
      </div>
      {extra ? <div className="dg-extra">{extra}</div> : null}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
});

const ShapeNode = memo(function ShapeNode({ data }: NodeProps<Node<NodeData>>) {
  const { node, state } = data;
  const text =
    node.kind === "start"
      ? "Start"
      : node.kind === "end"
        ? "End"
        : node.kind === "branch"
          ? `if ${node.label}`
          : node.label;
  return (
    <div
      className={`dg-node dg-shape kind-${node.kind}${state ? ` st-${state.status}` : ""}`}
      data-node={node.id}
      title={node.label}
    >
      <Handle type="target" position={Position.Top} />
      <span>{text}</span>
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
});

const DotNode = memo(function DotNode({ data }: NodeProps<Node<NodeData>>) {
  return (
    <div className={`dg-dot kind-${data.node.kind}`} data-node={data.node.id} title={data.node.kind}>
      <Handle type="target" position={Position.Top} />
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
});

const GroupNode = memo(function GroupNode({ data }: NodeProps<Node<GroupData>>) {
  return (
    <div className="dg-group">
      <span className="dg-group-label">{data.label}</span>
    </div>
  );
});

/**
 * An edge drawn along ELK's route (`lib/diagram-layout.ts`): orthogonal segments between the
 * layers that go around the boxes, the label where ELK made room for it. Without a route, a
 * straight line between the handles.
 */
const RoutedEdge = memo(function RoutedEdge(props: EdgeProps<Edge<RouteData>>) {
  const { sourceX, sourceY, targetX, targetY, data, label, labelStyle, markerEnd, style } = props;
  const points = data?.route?.points.length
    ? data.route.points
    : [
        { x: sourceX, y: sourceY },
        { x: targetX, y: targetY },
      ];
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"} ${p.x} ${p.y}`).join(" ");
  const at = data?.route?.label ?? { x: (sourceX + targetX) / 2, y: (sourceY + targetY) / 2 };
  return (
    <BaseEdge
      path={path}
      label={label}
      labelX={at.x}
      labelY={at.y}
      labelStyle={labelStyle}
      labelBgPadding={[4, 2]}
      labelBgBorderRadius={4}
      markerEnd={markerEnd}
      style={style}
    />
  );
});

const NODE_TYPES = { prim: PrimitiveNode, shape: ShapeNode, dot: DotNode, backdrop: GroupNode };
const EDGE_TYPES = { routed: RoutedEdge };
const PRIMS = new Set(["task", "step", "sleep", "approval", "wait"]);

/** The height that shows the whole diagram at a readable zoom in a box `width` wide (between 260 and `max`). */
function fittedHeight(layout: Layout, width: number, max: number): number {
  const xs = layout.nodes.map((n) => [n.x, n.x + n.width]).flat();
  const ys = layout.nodes.map((n) => [n.y, n.y + n.height]).flat();
  const w = Math.max(...xs) - Math.min(...xs) + 80;
  const h = Math.max(...ys) - Math.min(...ys) + 80;
  const zoom = Math.min(1, width / w);
  return Math.round(Math.max(260, Math.min(max, h * zoom)));
}

/**
 * See the module comment. `states` (run pages) colours the nodes; `onSelect` gets clicks
 * on primitive nodes; the box grows to show the whole diagram, up to `maxHeight`.
 */
export default function Diagram({
  diagram,
  states,
  onSelect,
  maxHeight = 900,
}: {
  diagram: WorkflowDiagram;
  states?: Map<string, NodeState> | null;
  onSelect?(node: DiagramNode): void;
  maxHeight?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [layout, setLayout] = useState<Layout | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    layoutDiagram(diagram)
      .then((l) => !cancelled && setLayout(l))
      .catch((e: Error) => !cancelled && setFailed(e.message));
    return () => {
      cancelled = true;
    };
  }, [diagram]);
  const live = states !== undefined && states !== null;
  const { nodes, edges } = useMemo(() => {
    if (!layout) return { nodes: [], edges: [] };
    const groups: Node[] = layout.groups.map((g) => ({
      id: g.id,
      type: "backdrop",
      position: { x: g.x, y: g.y },
      data: { label: g.label },
      style: { width: g.width, height: g.height },
      draggable: false,
      selectable: false,
      zIndex: -1 + g.depth * 0.01,
    }));
    const nodes: Node[] = layout.nodes.map((p) => ({
      id: p.node.id,
      type: PRIMS.has(p.node.kind) ? "prim" : p.node.kind === "merge" || p.node.kind === "join" ? "dot" : "shape",
      position: { x: p.x, y: p.y },
      data: { node: p.node, state: states?.get(p.node.id) ?? null, live },
      style: { width: p.width, height: p.height },
      draggable: false,
      connectable: false,
    }));
    const reached = (id: string) => states?.has(id) ?? false;
    const routes = new Map(layout.edges.map((r) => [r.id, r]));
    const edges: Edge<RouteData>[] = diagram.edges.map((e, i) => {
      const active = live && reached(e.from) && reached(e.to);
      return {
        id: `e${i}`,
        source: e.from,
        target: e.to,
        type: "routed",
        data: { route: routes.get(`e${i}`) },
        label: e.label,
        className: active ? "dg-edge-active" : undefined,
        animated: active && ["running", "waiting", "pending", "sleeping"].includes(states?.get(e.to)?.status ?? ""),
      };
    });
    return { nodes: [...groups, ...nodes], edges };
  }, [layout, states, live, diagram]);
  if (failed) return <div className="notice notice-error">The diagram could not be laid out: {failed}</div>;
  const height = layout ? fittedHeight(layout, box.current?.clientWidth ?? 900, maxHeight) : 260;
  return (
    <div className="diagram" ref={box} style={{ height }} data-ready={layout ? "true" : "false"}>
      {layout ? (
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          edgeTypes={EDGE_TYPES}
          fitView
          fitViewOptions={{ padding: 0.06, maxZoom: 1 }}
          minZoom={0.2}
          nodesDraggable={false}
          nodesConnectable={false}
          onNodeClick={(_, n) => {
            const d = n.data as NodeData;
            if (d.node && PRIMS.has(d.node.kind)) onSelect?.(d.node);
          }}
        >
          <Background gap={20} size={1} color="#e4e4e7" />
          <Controls showInteractive={false} />
        </ReactFlow>
      ) : (
        <div className="muted small pad">Laying out…</div>
      )}
    </div>
  );
}
