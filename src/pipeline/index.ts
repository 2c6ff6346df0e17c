/**
 * The pure, I/O-free pipeline layer: annotation parsing, asset URIs, partitions, asset
 * detection, the lineage graph and selective-run planning. See `README.md` in this folder.
 */
export * from "./errors.js";
export * from "./diagnostics.js";
export * from "./duration.js";
export * from "./language.js";
export * from "./asset-uri.js";
export * from "./asset-match.js";
export * from "./partition-value.js";
export * from "./strftime.js";
export * from "./key-path.js";
export * from "./partition-spec.js";
export * from "./partition-time.js";
export * from "./partition-resolve.js";
export * from "./partition-range.js";
export * from "./annotation-types.js";
export {
  parseAnnotations,
  resolveLanguage,
  type ParseAnnotationsOptions,
  type ParsedAnnotations,
} from "./annotations.js";
export { checkMaterializeBody, splitSqlStatements, type BodyProblem, type SqlStatement } from "./materialize-body.js";
export type { DetectedAccess } from "./detect-types.js";
export { detectAssets, type DetectAssetsOptions, type DetectedAsset, type DetectedAssets } from "./detect-assets.js";
export * from "./lineage-types.js";
export { buildLineageGraph, cascadeEdges, producersOf, scriptName, scriptId, assetId } from "./lineage-graph.js";
export { effectiveSchemes, describeScheme, type EffectiveScheme } from "./lineage-schemes.js";
export { validatePipeline } from "./lineage-validate.js";
export { topologicalOrder, findCycle, type DirectedEdge } from "./topo-order.js";
export { resolveNode, type ResolvedNode } from "./node-resolve.js";
export { planSelectiveRun, validStarts, splitNodeList, type SelectionRequest, type RunPlan } from "./selective-run.js";
export {
  analyzeScript,
  analyzePipeline,
  type ScriptSource,
  type AnalyzedScript,
  type AnalyzedPipeline,
} from "./analyze.js";
