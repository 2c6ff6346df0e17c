/**
 * The pipeline runtime (seed 001 run for real): scripts in a folder wired by the assets
 * they read and write, run on the engine with the cascade, joins, debounce, partitions,
 * native triggers, freshness, selective runs and backfills. See `docs/ARCHITECTURE.md`.
 */
export { attachPipelines, PipelineHost, type PipelineOptions } from "./host.js";
export { PipelineCatalog } from "./catalog.js";
export * from "./errors.js";
export { buildPayload } from "./meta.js";
export { MAX_CASCADE_DEPTH } from "./dispatch.js";
export { readDecisions } from "./decisions.js";
export { listJoins } from "./join.js";
export { freshnessOf, FreshnessWatchdog } from "./freshness.js";
