/**
 * Building the lineage graph of a folder's pipeline from parsed scripts, and the cascade
 * relations derived from it (which script fires which).
 */
import { effectiveDebounce } from "./annotation-types.js";
import { assetContains, matchAssetUri } from "./asset-match.js";
import type { AssetUri } from "./asset-uri.js";
import type { AssetNode, LineageEdge, LineageGraph, PipelineScript, ScriptNode, TriggerNode } from "./lineage-types.js";
import type { DirectedEdge } from "./topo-order.js";

/** Node id of a script path. */
export const scriptId = (path: string): string => `script:${path}`;
/** Node id of an asset URI (canonical). */
export const assetId = (uri: string): string => `asset:${uri}`;

/** The display name of a script path: file name without folder and extension. */
export function scriptName(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * Build the graph. Only scripts with `// pipeline` become nodes (others are listed in
 * `excluded`). A concrete written URI that matches a declared `{partition}` input is
 * attached to the declared node, and a write inside a declared container (a table of
 * `datatable://main`, a key under an `s3://…/` prefix) also writes the container; such edges
 * keep the concrete URI in `written`.
 */
export function buildLineageGraph(scripts: Iterable<PipelineScript>): LineageGraph {
  const all = [...scripts].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const members = all.filter((s) => s.annotations.pipeline);
  const assets = new Map<string, AssetNode>();
  const addAsset = (asset: AssetUri): string => {
    const id = assetId(asset.uri);
    if (!assets.has(id)) assets.set(id, { type: "asset", id, asset });
    return id;
  };
  const declared = [
    ...new Map(members.flatMap((s) => s.annotations.inputs.map((i) => [i.asset.uri, i.asset] as const))).values(),
  ];
  const edges: LineageEdge[] = [];
  const triggers: TriggerNode[] = [];
  const nodes: ScriptNode[] = members.map((s) => ({
    type: "script",
    id: scriptId(s.path),
    path: s.path,
    name: scriptName(s.path),
    annotations: s.annotations,
  }));
  for (const s of members) {
    const id = scriptId(s.path);
    for (const input of s.annotations.inputs) {
      const debounce = effectiveDebounce(s.annotations, input);
      edges.push({
        kind: "triggers",
        from: addAsset(input.asset),
        to: id,
        line: input.line,
        ...(debounce && { debounceSeconds: debounce.seconds }),
      });
    }
    for (const marker of s.annotations.nativeTriggers) {
      const tid = `trigger:${marker.kind}:${s.path}`;
      triggers.push({ type: "trigger", id: tid, kind: marker.kind, script: s.path });
      edges.push({ kind: "fires", from: tid, to: id, line: marker.line });
    }
    for (const w of s.assets.writes) {
      const exact = declared.some((d) => d.uri === w.asset.uri);
      const template =
        exact || w.asset.partitioned ? undefined : declared.find((d) => d.partitioned && matchAssetUri(d, w.asset));
      if (template) edges.push({ kind: "writes", from: id, to: addAsset(template), written: w.asset.uri });
      else edges.push({ kind: "writes", from: id, to: addAsset(w.asset) });
      for (const parent of declared.filter((d) => assetContains(d, w.asset))) {
        edges.push({ kind: "writes", from: id, to: addAsset(parent), written: w.asset.uri });
      }
    }
    const inputs = new Set(s.annotations.inputs.map((i) => i.asset.uri));
    for (const r of s.assets.reads) {
      if (!inputs.has(r.asset.uri)) edges.push({ kind: "reads", from: addAsset(r.asset), to: id });
    }
  }
  return {
    scripts: nodes,
    assets: [...assets.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    triggers,
    edges,
    excluded: all.filter((s) => !s.annotations.pipeline).map((s) => s.path),
  };
}

/** Script ids that write the asset node `asset`. */
export function producersOf(graph: LineageGraph, asset: string): string[] {
  return graph.edges.filter((e) => e.kind === "writes" && e.to === asset).map((e) => e.from);
}

/**
 * The cascade as script → script edges: P → C when P writes an asset C declares with `// on`.
 * Duplicates are removed.
 */
export function cascadeEdges(graph: LineageGraph): DirectedEdge[] {
  const seen = new Set<string>();
  const out: DirectedEdge[] = [];
  for (const t of graph.edges) {
    if (t.kind !== "triggers") continue;
    for (const from of producersOf(graph, t.from)) {
      const key = `${from}\u0000${t.to}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ from, to: t.to });
    }
  }
  return out;
}
