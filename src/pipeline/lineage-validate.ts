/**
 * Load-time validation of a pipeline's lineage graph. Errors reject the pipeline; warnings
 * point at likely mistakes. Most importantly, a `// trigger all` step whose partition-bearing
 * inputs use different partition schemes is an ERROR here: the seed lets such a join silently
 * never complete, Sluice refuses to load it.
 */
import type { Diagnostic } from "./diagnostics.js";
import { annotationHint } from "./language.js";
import { assetId, cascadeEdges, producersOf } from "./lineage-graph.js";
import { describeScheme, effectiveSchemes, producerSchemes, type EffectiveScheme } from "./lineage-schemes.js";
import type { LineageGraph, ScriptNode } from "./lineage-types.js";
import { partitionSchemeKey } from "./partition-spec.js";
import { findCycle } from "./topo-order.js";

type Report = (
  severity: Diagnostic["severity"],
  script: ScriptNode,
  line: number,
  code: string,
  message: string,
) => void;

function checkJoin(
  graph: LineageGraph,
  schemes: ReadonlyMap<string, EffectiveScheme>,
  s: ScriptNode,
  report: Report,
): void {
  if (s.annotations.trigger !== "all") return;
  const line = s.annotations.triggerLine ?? 0;
  const seen = new Map<string, string>();
  for (const input of s.annotations.inputs.filter((i) => i.asset.partitioned)) {
    const node = assetId(input.asset.uri);
    const producers = producersOf(graph, node);
    const withScheme = producerSchemes(graph, schemes, node);
    if (producers.length === 0) {
      report(
        "warning",
        s,
        input.line,
        "JOIN_INPUT_EXTERNAL",
        `no script in this pipeline writes ${input.asset.uri}, so the \`${annotationHint([s.path], "trigger all")}\` join waits for a writer outside the pipeline and its partition scheme cannot be checked`,
      );
    } else if (withScheme.length === 0) {
      report(
        "error",
        s,
        input.line,
        "JOIN_INPUT_UNPARTITIONED",
        `${input.asset.uri} is only written by unpartitioned scripts (${producers.map((p) => p.slice(7)).join(", ")}); their writes carry no partition, so this \`${annotationHint([s.path], "trigger all")}\` join would never fire. Add \`${annotationHint(
          producers.map((p) => p.slice(7)),
          "partitioned …",
        )}\` to the producer, or use \`${annotationHint([s.path], "trigger any")}\``,
      );
    }
    for (const p of withScheme) {
      const key = partitionSchemeKey(p.spec);
      if (!seen.has(key)) seen.set(key, `${input.asset.uri} is ${describeScheme(p.spec)} (from ${p.script})`);
    }
  }
  if (seen.size > 1) {
    report(
      "error",
      s,
      line,
      "JOIN_SCHEME_MISMATCH",
      `the partition-bearing inputs of this \`${annotationHint([s.path], "trigger all")}\` step use different partition schemes, so their partition values never coincide and the join would never fire: ${[...seen.values()].join("; ")}. Put every partition-bearing input on the same scheme (kind, tz and format)`,
    );
  }
}

function checkSchemes(
  graph: LineageGraph,
  schemes: ReadonlyMap<string, EffectiveScheme>,
  s: ScriptNode,
  report: Report,
): void {
  const own = s.annotations.partitioned;
  if (own) {
    const upstream = s.annotations.inputs
      .filter((i) => i.asset.partitioned)
      .flatMap((i) => producerSchemes(graph, schemes, assetId(i.asset.uri)))
      .find((p) => partitionSchemeKey(p.spec) !== partitionSchemeKey(own.spec));
    if (upstream) {
      report(
        "warning",
        s,
        own.line,
        "PARTITION_SCHEME_DIFFERS_FROM_UPSTREAM",
        `this script is ${describeScheme(own.spec)} but its upstream ${upstream.script} is ${describeScheme(upstream.spec)}; in a cascade the upstream partition value is passed down as-is, so this script's own scheme only applies to its scheduled or manual runs`,
      );
    }
  }
  if (!schemes.has(s.id)) {
    const templated = graph.edges.find(
      (e) => e.kind === "writes" && e.from === s.id && e.to.includes("{partition}") && e.written === undefined,
    );
    if (templated) {
      report(
        "warning",
        s,
        0,
        "WRITES_PARTITION_WITHOUT_SCHEME",
        `this script writes ${templated.to.slice(6)} but is not partitioned and has no partitioned upstream, so it never receives a partition value; add \`${annotationHint([s.path], "partitioned …")}\``,
      );
    }
  }
}

/**
 * Validate a lineage graph.
 *
 * @returns diagnostics with `script` set (line 0 when not tied to a line). Any `error` means
 * the pipeline must not be loaded.
 */
export function validatePipeline(graph: LineageGraph): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report: Report = (severity, script, line, code, message) =>
    out.push({ severity, script: script.path, line, code, message });
  const schemes = effectiveSchemes(graph);
  for (const s of graph.scripts) {
    checkJoin(graph, schemes, s, report);
    checkSchemes(graph, schemes, s, report);
  }
  const byName = new Map<string, ScriptNode[]>();
  for (const s of graph.scripts) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  for (const [name, same] of byName) {
    if (same.length > 1) {
      for (const s of same)
        report(
          "warning",
          s,
          0,
          "SCRIPT_NAME_AMBIGUOUS",
          `${same.length} scripts are named ${JSON.stringify(name)} (${same.map((x) => x.path).join(", ")}); refer to them by path in --from/--to`,
        );
    }
  }
  const cycle = findCycle(
    graph.scripts.map((s) => s.id),
    cascadeEdges(graph),
  );
  const first = graph.scripts.find((s) => s.id === cycle?.[0]);
  if (cycle && first) {
    report(
      "warning",
      first,
      0,
      "PIPELINE_CYCLE",
      `the cascade has a cycle (${cycle.map((id) => id.slice(7)).join(" -> ")}); it is depth-capped at run time, but selective runs through it are refused. Break the cycle by removing one \`${annotationHint(
        cycle.map((id) => id.slice(7)),
        "on",
      )}\` input`,
    );
  }
  return out;
}
