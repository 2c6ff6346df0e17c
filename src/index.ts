/**
 * Sluice: durable workflows for TypeScript.
 *
 * @example
 * import { createEngine, defineWorkflow } from "sluice";
 * const hello = defineWorkflow<{ name: string }>("hello", {
 *   handler: async (p, ctx) => ctx.run("greet", () => `hello ${p.name}`),
 * });
 * const engine = createEngine({ workflows: [hello] });
 * await engine.start();
 * const run = await hello.start({ name: "world" });
 * console.log(await run.result()); // "hello world"
 * await engine.stop();
 *
 * One API style per entry point: `sluice` is the Tako-style API (`defineWorkflow`,
 * `ctx.sleep(name, duration)`, a duration is a `Duration`: ms or `"30s"`); Windmill's
 * `workflow`/`task`/`sleep(seconds)` live in `sluice/windmill`, test helpers in
 * `sluice/testing`.
 */
import { installEnvironmentConnector } from "./entry-runtime.js";

export { defineWorkflow, isWorkflow } from "./sdk/workflow.js";
export type { AnyWorkflow, WorkflowDefinition, WorkflowOptions } from "./sdk/workflow.js";
export { signal } from "./sdk/signal.js";
export type { SignalOptions } from "./sdk/runtime.js";
export type { Logger, StepContext, StepOptions, WaitOptions, WorkflowContext } from "./sdk/context.js";
export type { EnqueueManyOptions, EnqueueOptions, RunHandle, RunInfo } from "./sdk/types.js";
export * from "./sdk/errors.js";
export { TakoError } from "./sdk/tako/errors.js";
export type { TakoErrorCode } from "./sdk/tako/errors.js";
export { createEngine, Engine } from "./engine/engine.js";
export type { EngineOptions, EngineWorkerOptions } from "./engine/engine.js";
export { openSqliteStore } from "./store/sqlite/store.js";
export type { SqliteStoreOptions } from "./store/sqlite/store.js";
export type { Store, RunRecord, RunStatus, StepRecord, LogRecord } from "./store/types.js";
export type { ScheduleChange, ScheduleOwner } from "./store/schedule-sync.js";
export type { Duration } from "./core/duration.js";
export type { RunId } from "./core/ids.js";
export type { SerializedError } from "./core/serde.js";
export type { BackoffPolicy } from "./core/backoff.js";
export type { Retention } from "./core/retention.js";

installEnvironmentConnector();
