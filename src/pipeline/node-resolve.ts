/**
 * Resolving the node references of `--from` / `--to`: a script path (with or without
 * extension), a script name (file name without extension), or an asset URI (exact, or a
 * concrete URI that matches a `{partition}` asset node).
 */
import { matchAssetUri } from "./asset-match.js";
import { hasAssetScheme, tryParseAssetUri } from "./asset-uri.js";
import { PipelineSelectionError } from "./errors.js";
import { scriptName } from "./lineage-graph.js";
import type { AssetNode, LineageGraph, ScriptNode } from "./lineage-types.js";

/** A resolved reference. */
export type ResolvedNode =
  | { readonly type: "script"; readonly ref: string; readonly node: ScriptNode }
  | { readonly type: "asset"; readonly ref: string; readonly node: AssetNode; readonly partition?: string };

const stripExt = (path: string): string => {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  return dot > slash + 1 ? path.slice(0, dot) : path;
};

function unknown(ref: string, what: string, known: readonly string[]): PipelineSelectionError {
  const list =
    known.length === 0
      ? "the pipeline has none"
      : `known ${what}: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}`;
  return new PipelineSelectionError(
    "PIPELINE_UNKNOWN_NODE",
    `${JSON.stringify(ref)} is not a ${what.replace(/s$/, "")} of this pipeline; ${list}`,
  );
}

function resolveAsset(graph: LineageGraph, ref: string): ResolvedNode {
  const asset = tryParseAssetUri(ref);
  const known = graph.assets.map((a) => a.asset.uri);
  if (!asset) throw unknown(ref, "asset URIs", known);
  const exact = graph.assets.find((a) => a.asset.uri === asset.uri);
  if (exact) return { type: "asset", ref, node: exact };
  const matches = graph.assets.flatMap((a) => {
    const m = matchAssetUri(a.asset, asset);
    return m ? [{ node: a, partition: m.partition }] : [];
  });
  const [match, ...more] = matches;
  if (!match) throw unknown(ref, "asset URIs", known);
  if (more.length > 0) {
    throw new PipelineSelectionError(
      "PIPELINE_AMBIGUOUS_NODE",
      `${ref} matches several assets (${matches.map((m) => m.node.asset.uri).join(", ")}); pass one of them exactly`,
    );
  }
  return match.partition === undefined
    ? { type: "asset", ref, node: match.node }
    : { type: "asset", ref, node: match.node, partition: match.partition };
}

/**
 * Resolve one `--from`/`--to` reference.
 *
 * @throws PipelineSelectionError `PIPELINE_UNKNOWN_NODE` (with the known names) or
 * `PIPELINE_AMBIGUOUS_NODE` (a name shared by several scripts; use the path).
 */
export function resolveNode(graph: LineageGraph, ref: string): ResolvedNode {
  const text = ref.trim();
  if (hasAssetScheme(text)) return resolveAsset(graph, text);
  const byPath =
    graph.scripts.find((s) => s.path === text) ?? graph.scripts.find((s) => stripExt(s.path) === stripExt(text));
  if (byPath) return { type: "script", ref, node: byPath };
  const byName = graph.scripts.filter((s) => s.name === scriptName(text) && !text.includes("/"));
  const [one, ...more] = byName;
  if (one && more.length === 0) return { type: "script", ref, node: one };
  if (one) {
    throw new PipelineSelectionError(
      "PIPELINE_AMBIGUOUS_NODE",
      `${JSON.stringify(ref)} names ${byName.length} scripts (${byName.map((s) => s.path).join(", ")}); pass the path instead`,
    );
  }
  throw unknown(
    ref,
    "scripts",
    graph.scripts.map((s) => s.name),
  );
}
