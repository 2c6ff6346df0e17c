/**
 * A pipeline's lineage graph: scripts, assets and native triggers laid out left to right
 * by ELK and drawn with React Flow. Scripts are coloured by their last run (live), assets
 * show how many partitions were written, triggers without a row are drawn dashed. A graph
 * too wide to fit legibly opens at a readable zoom from its left end (lib/graph-viewport.ts);
 * the fit button of the controls still shows all of it.
 */
import {
  Background,
  Controls,
  type Edge,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  type ReactFlowInstance,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import ELK from "elkjs/lib/elk.bundled.js";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { boundsOf, openingViewport } from "../lib/graph-viewport";
import type { PipelineNode, PipelineView } from "../lib/pipeline-view";
import { statusLabel } from "../lib/status";

type Data = { node: PipelineNode; selected: boolean };
const SIZE: Record<PipelineNode["kind"], { width: number; height: number }> = {
  script: { width: 210, height: 62 },
  asset: { width: 250, height: 44 },
  trigger: { width: 190, height: 36 },
};

const PipelineNodeView = memo(function PipelineNodeView({ data }: NodeProps<Node<Data>>) {
  const { node, selected } = data;
  const cls = `pl-node pl-${node.kind}${selected ? " pl-selected" : ""}${node.kind === "script" && node.status ? ` st-${node.status}` : ""}${node.kind === "trigger" && !node.configured ? " pl-unconfigured" : ""}`;
  return (
    <div
      className={cls}
      data-node={node.id}
      data-status={node.kind === "script" ? (node.status ?? "") : ""}
      title={node.kind === "asset" ? node.uri : node.label}
    >
      <Handle type="target" position={Position.Left} />
      {node.kind === "script" ? (
        <>
          <div className="pl-top">
            <span className="pl-lang">{node.language}</span>
            {node.stale ? <span className="pl-stale">stale</span> : null}
            <span className="pl-state">{node.status ? statusLabel(node.status as never) : "never run"}</span>
          </div>
          <div className="pl-label">{node.label}</div>
          {node.partition ? <div className="pl-extra">partition {node.partition}</div> : null}
        </>
      ) : node.kind === "asset" ? (
        <>
          <div className="pl-label mono">{node.label}</div>
          <div className="pl-extra">
            {node.written
              ? `${node.written} ${node.partitioned ? "partition(s)" : "write(s)"} written${node.lastPartition ? `, last ${node.lastPartition}` : ""}`
              : "not written yet"}
          </div>
        </>
      ) : (
        <div className="pl-label">{node.label}</div>
      )}
      <Handle type="source" position={Position.Right} />
    </div>
  );
});

const NODE_TYPES = { pl: PipelineNodeView };
const elk = new ELK();

/** The opening zoom stays between these (below 0.7 the 12.5 px labels are unreadable). */
const OPENING = { padding: 16, minZoom: 0.7, maxZoom: 1 };

async function layout(view: PipelineView): Promise<Map<string, { x: number; y: number }>> {
  const g = await elk.layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.layered.spacing.nodeNodeBetweenLayers": "48",
      "elk.spacing.nodeNode": "22",
      "elk.edgeRouting": "ORTHOGONAL",
    },
    children: view.nodes.map((n) => ({ id: n.id, ...SIZE[n.kind] })),
    // A "columns ×N" badge gets room between the layers (ELK widens the gap to fit an edge label).
    edges: view.edges.map((e) => ({
      id: e.id,
      sources: [e.from],
      targets: [e.to],
      ...(e.columns && { labels: [{ id: `${e.id}-label`, text: "columns", width: 84, height: 16 }] }),
    })),
  });
  return new Map((g.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0 }]));
}

/** See the module comment. `onSelect` gets clicks on any node. */
export default function PipelineGraph({
  view,
  selected,
  onSelect,
}: {
  view: PipelineView;
  selected: string | null;
  onSelect(node: PipelineNode): void;
}) {
  const shape = useMemo(
    () => JSON.stringify([view.nodes.map((n) => n.id), view.edges.map((e) => [e.from, e.to, e.columns?.length ?? 0])]),
    [view],
  );
  const [positions, setPositions] = useState<Map<string, { x: number; y: number }> | null>(null);
  useEffect(() => {
    let cancelled = false;
    void layout(view).then((p) => !cancelled && setPositions(p));
    return () => {
      cancelled = true;
    };
    // Lay out again only when the graph's shape changes, not on every status refresh.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);
  const { nodes, edges } = useMemo(() => {
    if (!positions) return { nodes: [], edges: [] };
    const nodes: Node[] = view.nodes.map((n) => ({
      id: n.id,
      type: "pl",
      position: positions.get(n.id) ?? { x: 0, y: 0 },
      data: { node: n, selected: n.id === selected },
      style: SIZE[n.kind],
      draggable: false,
      connectable: false,
    }));
    const edges: Edge[] = view.edges.map((e) => ({
      id: e.id,
      source: e.from,
      target: e.to,
      type: "smoothstep",
      // The label is SVG text: a <title> child is the hover list of the mappings.
      label: e.columns ? (
        <tspan data-columns={e.columns.length}>
          <title>{e.columns.join("\n")}</title>
          {`columns ×${e.columns.length}`}
        </tspan>
      ) : e.kind === "triggers" ? (
        "on"
      ) : e.kind === "fires" ? undefined : (
        e.kind
      ),
      animated: e.active,
      className: e.kind === "reads" ? "pl-edge-reads" : undefined,
      labelBgPadding: [4, 2] as [number, number],
    }));
    return { nodes, edges };
  }, [positions, view, selected]);
  const box = useRef<HTMLDivElement>(null);
  // React Flow calls this once, when the first layout is drawn.
  const open = useCallback(
    (flow: ReactFlowInstance) => {
      if (!positions || !box.current) return;
      const graph = boundsOf(view.nodes.map((n) => ({ ...(positions.get(n.id) ?? { x: 0, y: 0 }), ...SIZE[n.kind] })));
      void flow.setViewport(openingViewport(graph, box.current.clientWidth, box.current.clientHeight, OPENING));
    },
    [positions, view],
  );
  const height = Math.min(720, Math.max(280, Math.max(0, ...[...(positions?.values() ?? [])].map((p) => p.y)) + 140));
  return (
    <div className="diagram" ref={box} style={{ height }} data-ready={positions ? "true" : "false"}>
      {positions ? (
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          onInit={open}
          fitViewOptions={{ padding: 0.06, maxZoom: 1 }}
          minZoom={0.2}
          nodesDraggable={false}
          nodesConnectable={false}
          onNodeClick={(_, n) => onSelect((n.data as Data).node)}
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
