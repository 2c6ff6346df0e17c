/**
 * Which steps a selective run or backfill runs: `--to` (with an optional `--from`: the
 * seed's "run up to here"), `--from` alone (it and everything downstream), or every
 * script of the folder, in topological order.
 */
import { InvalidInputError } from "../../sdk/errors.js";
import { cascadeEdges, scriptId } from "../lineage-graph.js";
import { resolveNode } from "../node-resolve.js";
import { planSelectiveRun, splitNodeList } from "../selective-run.js";
import { topologicalOrder } from "../topo-order.js";
import type { PipelineFolder } from "./catalog.js";

/** What to plan. `to` is a comma-separated list or an array of script names, paths or asset URIs. */
export interface StepRequest {
  readonly to?: string | readonly string[];
  readonly from?: string;
  /** Accept a `from` that is not a valid start (the UI's "run from here"). */
  readonly allowAnyStart?: boolean;
}

/** The planned steps (member paths, in order), the start and the resolved ends. */
export interface PlannedSteps {
  readonly steps: string[];
  readonly start?: string;
  readonly ends: string[];
}

/**
 * Plan the steps of a request on a folder.
 * @throws PipelineSelectionError for unknown, ambiguous or unreachable nodes; PipelineCycleError for a cyclic slice
 */
export function planSteps(folder: PipelineFolder, opts: StepRequest): PlannedSteps {
  const graph = folder.analysis.graph;
  if (opts.to !== undefined) {
    const to = typeof opts.to === "string" ? splitNodeList(opts.to) : [...opts.to];
    const plan = planSelectiveRun(graph, {
      to,
      ...(opts.from !== undefined && { from: opts.from }),
      ...(opts.allowAnyStart && { allowAnyStart: true }),
    });
    return {
      steps: [...plan.steps],
      start: plan.start,
      ends: plan.ends.map((e) => (e.type === "script" ? e.node.path : e.node.asset.uri)),
    };
  }
  const edges = cascadeEdges(graph);
  if (opts.from !== undefined) {
    const start = resolveNode(graph, opts.from);
    if (start.type !== "script")
      throw new InvalidInputError(`--from must be a script, not the asset ${start.node.asset.uri}`, {
        code: "INVALID_FROM",
      });
    const seen = new Set([start.node.id]);
    const queue = [start.node.id];
    while (queue.length) {
      const id = queue.shift()!;
      for (const e of edges) {
        if (e.from === id && !seen.has(e.to)) {
          seen.add(e.to);
          queue.push(e.to);
        }
      }
    }
    return {
      steps: topologicalOrder(seen, edges).map((id) => id.slice("script:".length)),
      start: start.node.path,
      ends: [],
    };
  }
  return {
    steps: topologicalOrder(
      graph.scripts.map((s) => scriptId(s.path)),
      edges,
    ).map((id) => id.slice("script:".length)),
    ends: [],
  };
}
