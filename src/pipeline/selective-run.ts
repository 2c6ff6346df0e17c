/**
 * Selective-run planning ("run up to here"): from a valid start node to one or more end
 * nodes, exactly the steps on the paths between them (every step needed to produce the ends
 * and nothing past them), in topological order.
 */
import { PipelineSelectionError } from "./errors.js";
import { assetId, cascadeEdges, producersOf, scriptId } from "./lineage-graph.js";
import type { LineageGraph, ScriptNode } from "./lineage-types.js";
import { resolveNode, type ResolvedNode } from "./node-resolve.js";
import { topologicalOrder, type DirectedEdge } from "./topo-order.js";

/** What to run. */
export interface SelectionRequest {
  /** Start script (name or path). Defaults to the pipeline's sole valid start, or the sole one that reaches every end. */
  readonly from?: string;
  /** End nodes: script names, paths or asset URIs. At least one. */
  readonly to: readonly string[];
  /** Accept any script as `from`, not only valid starts (default `false`, as the seed). */
  readonly allowAnyStart?: boolean;
}

/** The planned run. */
export interface RunPlan {
  /** Path of the start script. */
  readonly start: string;
  /** The resolved ends, in request order. */
  readonly ends: readonly ResolvedNode[];
  /** Paths of the scripts to run, in topological order (start first). */
  readonly steps: readonly string[];
}

/**
 * The valid start nodes (script paths): scripts with no upstream script in the cascade
 * (manual entry points) and scripts that declare a native trigger (`// on schedule` …).
 */
export function validStarts(graph: LineageGraph): string[] {
  const cascade = cascadeEdges(graph);
  return graph.scripts
    .filter((s) => s.annotations.nativeTriggers.length > 0 || !cascade.some((e) => e.to === s.id && e.from !== s.id))
    .map((s) => s.path);
}

function reach(from: readonly string[], edges: readonly DirectedEdge[], forward: boolean): Set<string> {
  const seen = new Set(from);
  const queue = [...from];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    for (const e of edges) {
      const [a, b] = forward ? [e.from, e.to] : [e.to, e.from];
      if (a === id && !seen.has(b)) {
        seen.add(b);
        queue.push(b);
      }
    }
  }
  return seen;
}

/** Script ids an end stands for: the script itself, or the producers of the asset. */
function endScripts(graph: LineageGraph, end: ResolvedNode): string[] {
  return end.type === "script" ? [end.node.id] : producersOf(graph, assetId(end.node.asset.uri));
}

function pickStart(
  graph: LineageGraph,
  request: SelectionRequest,
  ends: readonly ResolvedNode[],
  edges: readonly DirectedEdge[],
): ScriptNode {
  const starts = validStarts(graph);
  if (request.from !== undefined) {
    const resolved = resolveNode(graph, request.from);
    if (resolved.type !== "script") {
      throw new PipelineSelectionError(
        "PIPELINE_INVALID_START",
        `--from must be a script, not the asset ${resolved.node.asset.uri}; valid starts: ${starts.join(", ") || "none"}`,
      );
    }
    if (!request.allowAnyStart && !starts.includes(resolved.node.path)) {
      throw new PipelineSelectionError(
        "PIPELINE_INVALID_START",
        `${resolved.node.path} is not a valid start (it is fired by an upstream script and has no schedule or other trigger marker); valid starts: ${starts.join(", ") || "none"}`,
      );
    }
    return resolved.node;
  }
  if (starts.length === 0) {
    throw new PipelineSelectionError(
      "PIPELINE_NO_START",
      "the pipeline has no valid start (every script is fired by another one); pass --from <script>",
    );
  }
  if (starts.length > 1) {
    const fits = starts.filter((p) => {
      const down = reach([scriptId(p)], edges, true);
      return ends.every((e) => endScripts(graph, e).some((id) => down.has(id)));
    });
    // Only one of them leads to every end: that is the start the run needs (no --from to type).
    const sole = fits.length === 1 ? graph.scripts.find((s) => s.path === fits[0]) : undefined;
    if (sole) return sole;
    const hint = fits.length > 0 ? ` (reaching every end: ${fits.join(", ")})` : "";
    throw new PipelineSelectionError(
      "PIPELINE_AMBIGUOUS_START",
      `the pipeline has ${starts.length} valid starts: ${starts.join(", ")}${hint}; pass --from <script>`,
    );
  }
  const only = graph.scripts.find((s) => s.path === starts[0]);
  if (!only)
    throw new PipelineSelectionError("PIPELINE_NO_START", "the pipeline has no valid start; pass --from <script>");
  return only;
}

/**
 * Plan a bounded run from a start to one or more ends.
 *
 * @throws PipelineSelectionError `PIPELINE_NO_TARGETS`, `PIPELINE_UNKNOWN_NODE`,
 * `PIPELINE_AMBIGUOUS_NODE`, `PIPELINE_NO_START`, `PIPELINE_AMBIGUOUS_START`,
 * `PIPELINE_INVALID_START`, `PIPELINE_UNREACHABLE`; PipelineCycleError when the slice has a cycle.
 * @example planSelectiveRun(graph, { to: ["datatable://main/staged"] }).steps // ["f/etl/ingest.ts", "f/etl/stage.ts"]
 */
export function planSelectiveRun(graph: LineageGraph, request: SelectionRequest): RunPlan {
  const refs = request.to.map((t) => t.trim()).filter((t) => t !== "");
  if (refs.length === 0)
    throw new PipelineSelectionError("PIPELINE_NO_TARGETS", "--to needs at least one script name, path or asset URI");
  const ends = refs.map((ref) => resolveNode(graph, ref));
  const edges = cascadeEdges(graph);
  const start = pickStart(graph, request, ends, edges);
  const down = reach([start.id], edges, true);
  const needed = new Set<string>();
  for (const end of ends) {
    const reachable = endScripts(graph, end).filter((id) => down.has(id));
    if (reachable.length === 0) {
      const what = end.type === "script" ? end.node.path : end.node.asset.uri;
      throw new PipelineSelectionError(
        "PIPELINE_UNREACHABLE",
        `${what} cannot be reached from ${start.path} through the cascade; pick an end downstream of it or another --from`,
      );
    }
    for (const id of reach(reachable, edges, false)) if (down.has(id)) needed.add(id);
  }
  const steps = topologicalOrder(needed, edges).map((id) => id.slice("script:".length));
  return { start: start.path, ends, steps };
}

/** Split a `--to a,b,c` value into references (commas, surrounding whitespace dropped). */
export function splitNodeList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
