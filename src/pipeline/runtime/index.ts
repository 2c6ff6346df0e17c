/**
 * The pipeline runtime (seed 001 run for real): scripts in a folder wired by the assets
 * they read and write, run on the engine with the cascade, joins, debounce, partitions,
 * native triggers, freshness, selective runs and backfills. See `docs/ARCHITECTURE.md`.
 */
export { attachPipelines, PipelineHost, type PipelineOptions, type RunScriptOptions } from "./host.js";
export {
  PipelineCatalog,
  type MemberScript,
  type PipelineFolder,
  type Subscription,
  PIPELINE_EXTENSIONS,
} from "./catalog.js";
export * from "./errors.js";
export { META_KEY, WMILL_SKIP_DISPATCH, splitPayload, buildPayload, type RunMeta, type RunTrigger } from "./meta.js";
export { MAX_CASCADE_DEPTH, dispatchCascade, type ProducerRun } from "./dispatch.js";
export { readDecisions, type DispatchDecision, type DecisionOutcome } from "./decisions.js";
export { listJoins, type JoinState } from "./join.js";
export { listDebounces, type DebounceState } from "./debounce.js";
export { planSteps, type StepRequest, type PlannedSteps } from "./plan.js";
export { pipelineStatus, type PipelineStatus, type ScriptStatus } from "./status.js";
export { PLAN_WORKFLOW, type PlanPayload, type PlanResult } from "./plan-workflow.js";
export { renderText, renderMermaid, graphJson, triggerViews } from "./render.js";
export { freshnessOf, FreshnessWatchdog } from "./freshness.js";
export { PipelineRunContext, WRITTEN_PREFIX } from "./run-context.js";
export { TRIGGERS_FILE, parseTriggersFile } from "./triggers-config.js";
