/**
 * The pipeline page's model, pure: the lineage graph from `/api/pipelines` joined with
 * the live state from `/api/pipelines/status` — each script with its last run, each
 * asset with the partitions written, each native trigger with its configuration state.
 */
import type { PipelineGraphJson } from "../../../pipeline/runtime/render";
import type { PipelineStatus } from "../../../pipeline/runtime/status";
import { lineageLines } from "../../../pipeline/runtime/lineage-record";

/** A node of the pipeline graph. */
export type PipelineNode =
  | {
      kind: "script";
      id: string;
      label: string;
      path: string;
      name: string;
      language: string;
      labels: string[];
      status: string | null;
      trigger: string | null;
      partition: string | null;
      stale: boolean;
      runId: string | null;
      partitioned: boolean;
    }
  | {
      kind: "asset";
      id: string;
      label: string;
      uri: string;
      partitioned: boolean;
      written: number;
      lastPartition: string | null;
    }
  | { kind: "trigger"; id: string; label: string; configured: boolean; state: string };

/** An edge: `writes` (script → asset), `triggers` (asset → script, `// on`), `reads` (lineage only), `fires` (trigger → script). */
export interface PipelineEdge {
  id: string;
  from: string;
  to: string;
  kind: string;
  active: boolean;
  /** On a write into a materialized lake table: its column lineage, one `out ← sources` line per column. */
  columns?: string[];
}

/** The page's graph. */
export interface PipelineView {
  nodes: PipelineNode[];
  edges: PipelineEdge[];
}

const ACTIVE = new Set(["pending", "running", "waiting"]);

/** Builds the view of one folder (`status` may still be loading). */
export function pipelineView(graph: PipelineGraphJson, status: PipelineStatus | null): PipelineView {
  const nodes: PipelineNode[] = [];
  const known = new Set<string>();
  for (const s of graph.scripts) {
    const st = status?.scripts.find((x) => x.path === s.path) ?? null;
    const id = `script:${s.path}`;
    known.add(id);
    nodes.push({
      kind: "script",
      id,
      label: s.path.split("/").pop() ?? s.path,
      path: s.path,
      name: s.name,
      language: s.language,
      labels: s.labels,
      status: st?.lastRun?.status ?? null,
      trigger: st?.lastRun?.trigger ?? null,
      partition: st?.lastRun?.partition ?? null,
      stale: st?.freshness?.stale ?? false,
      runId: st?.lastRun?.id ?? null,
      partitioned: s.partition !== null,
    });
    for (const t of s.triggers) {
      const tid = `trigger:${t.kind}:${s.path}`;
      known.add(tid);
      nodes.push({
        kind: "trigger",
        id: tid,
        label: t.state === "configured" ? `${t.kind}: ${t.detail ?? ""}` : `${t.kind} (${t.state.replace("-", " ")})`,
        configured: t.state === "configured",
        state: t.state,
      });
    }
  }
  for (const a of graph.assets) {
    const id = `asset:${a.uri}`;
    known.add(id);
    const parts = status?.assets.find((x) => x.uri === a.uri)?.partitions ?? [];
    const last = [...parts].sort((x, y) => y.at - x.at)[0];
    nodes.push({
      kind: "asset",
      id,
      label: a.uri,
      uri: a.uri,
      partitioned: a.partitioned,
      written: parts.length,
      lastPartition: last?.partition ?? null,
    });
  }
  const running = new Set(
    nodes.filter((n) => n.kind === "script" && n.status !== null && ACTIVE.has(n.status)).map((n) => n.id),
  );
  const edges = graph.edges
    .filter((e) => known.has(e.from) && known.has(e.to))
    .map((e, i) => {
      // the graph's own lineage of the edge (recorded, or inferred from the SQL before a first write), else the status's
      const drawn =
        e.kind === "writes" && "lineage" in e && e.lineage?.columns.length ? lineageLines(e.lineage) : undefined;
      const columns =
        drawn ?? (e.kind === "writes" ? status?.assets.find((a) => `asset:${a.uri}` === e.to)?.columns : undefined);
      return {
        id: `e${i}`,
        from: e.from,
        to: e.to,
        kind: e.kind,
        active: running.has(e.from) || running.has(e.to),
        ...(columns && { columns: [...columns] }),
      };
    });
  const seen = new Set<string>();
  return {
    nodes,
    edges: edges.filter((e) => !seen.has(`${e.from}>${e.to}>${e.kind}`) && seen.add(`${e.from}>${e.to}>${e.kind}`)),
  };
}
