/**
 * The effective partition scheme of each script: its own `// partitioned`, else the single
 * scheme shared by the producers of its partition-bearing inputs (the partition value is
 * propagated down the chain, so a step without `// partitioned` inherits its upstream's).
 */
import { assetId, producersOf } from "./lineage-graph.js";
import type { LineageGraph, ScriptNode } from "./lineage-types.js";
import { partitionSchemeKey, type PartitionSpec } from "./partition-spec.js";

/** Where a script's scheme comes from. */
export interface EffectiveScheme {
  readonly spec: PartitionSpec;
  /** `own`: the script's `// partitioned`; `inherited`: from upstream producers. */
  readonly source: "own" | "inherited";
}

/** The schemes of the producers of one asset node that have a scheme. */
export function producerSchemes(
  graph: LineageGraph,
  schemes: ReadonlyMap<string, EffectiveScheme>,
  asset: string,
): Array<{ script: string; spec: PartitionSpec }> {
  return producersOf(graph, asset).flatMap((id) => {
    const scheme = schemes.get(id);
    return scheme ? [{ script: id.slice("script:".length), spec: scheme.spec }] : [];
  });
}

function inherit(
  graph: LineageGraph,
  schemes: ReadonlyMap<string, EffectiveScheme>,
  script: ScriptNode,
): PartitionSpec | undefined {
  const found = script.annotations.inputs
    .filter((i) => i.asset.partitioned)
    .flatMap((i) => producerSchemes(graph, schemes, assetId(i.asset.uri)).map((p) => p.spec));
  const keys = new Set(found.map(partitionSchemeKey));
  return keys.size === 1 ? found[0] : undefined;
}

/**
 * Compute every script's effective scheme (by script id). Iterates to a fixpoint so the
 * order of scripts and cycles do not matter; a script whose inputs disagree inherits nothing.
 */
export function effectiveSchemes(graph: LineageGraph): Map<string, EffectiveScheme> {
  const schemes = new Map<string, EffectiveScheme>();
  for (const s of graph.scripts) {
    if (s.annotations.partitioned) schemes.set(s.id, { spec: s.annotations.partitioned.spec, source: "own" });
  }
  for (let round = 0; round <= graph.scripts.length; round++) {
    let changed = false;
    for (const s of graph.scripts) {
      if (s.annotations.partitioned || schemes.has(s.id)) continue;
      const spec = inherit(graph, schemes, s);
      if (spec) {
        schemes.set(s.id, { spec, source: "inherited" });
        changed = true;
      }
    }
    if (!changed) break;
  }
  return schemes;
}

/** Human description of a scheme for messages, e.g. `daily (tz=UTC, format=%Y-%m-%d)`. */
export function describeScheme(spec: PartitionSpec): string {
  return spec.kind === "dynamic" ? `dynamic (key=${spec.key})` : `${spec.kind} (tz=${spec.tz}, format=${spec.format})`;
}
