/**
 * The process-wide meeting point between user code and the engine: the one registry
 * Sluice keeps on `globalThis` for code it does not construct. User code imports the SDK's
 * free functions (`signal`, `.enqueue()`, `writeS3File`, …) as modules, so they cannot be
 * handed an engine; they find it here. It holds exactly three things, under a registered
 * symbol so that every copy of the SDK loaded in a process (the app's, a bundled workflow
 * module's, a compatibility entry point's) sees the same record:
 *
 * - the execution context of the calling code (an `AsyncLocalStorage`: inside a run, the
 *   engine running it, so two engines in one process never mix their runs' calls; the same
 *   store also holds the OpenTelemetry context when `worker/otel-context.ts` is the registered
 *   context manager, so a traced process propagates one store through its promises, not two);
 * - the started engines, for calls made outside any run (the most recently started wins);
 * - the connector that opens a store-backed runtime in a process with no engine.
 *
 * Everything else an engine needs (its store, clock, pipeline and asset hosts) is passed
 * to it or hangs off it ({@link SluiceRuntime.assetSdk}); see "Process-wide state" in
 * `docs/ARCHITECTURE.md`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { SluiceUnavailableError, type UnavailableErrorFactory } from "./errors.js";
import type { RunHandle, EnqueueOptions } from "./types.js";
import type { Duration } from "../core/duration.js";
import type { AnyWorkflow } from "./workflow.js";
import type { AssetSdkHost } from "./windmill/asset-host.js";

/** What the SDK needs of an engine; implemented by `engine/engine.ts`. */
export interface SluiceRuntime {
  /**
   * Enqueues a run of `workflow`. Given a definition, an engine that does not know its
   * name (a producer process) uses the definition's own settings.
   */
  enqueueRun(workflow: string | AnyWorkflow, payload: unknown, options?: EnqueueOptions): Promise<RunHandle<unknown>>;
  signal(event: string, payload?: unknown, options?: SignalOptions): Promise<number>;
  /**
   * The asset storage for the SDK's asset helpers called by this engine's code (bound to
   * the calling pipeline run, if any); undefined when no pipelines are attached to it.
   */
  assetSdk?(): AssetSdkHost | undefined;
}

/** Options of `signal()` (beyond the seed). */
export interface SignalOptions {
  /**
   * Keep the signal this long when no run is waiting on the event (`"1h"`, `30_000`): the next
   * `ctx.waitFor(event)` to park takes it, once, oldest first. Without it a signal that finds no
   * waiting run is dropped, as in the seed. A signal that wakes runs is never kept.
   */
  buffer?: Duration;
}

/** The execution an SDK call belongs to; implemented by `worker/execution.ts`. */
export interface ExecutionScope {
  /** The execution (opaque to the SDK's free functions; they call its methods). */
  readonly execution: unknown;
  /** Key of the step whose body is running, for log attribution; null outside steps. */
  readonly stepKey: string | null;
  /** The engine running this execution. */
  readonly runtime: SluiceRuntime;
}

/**
 * Opens a runtime for code that runs outside any engine (an app's HTTP process calling
 * `.enqueue()`), or resolves null when this process is not configured for one.
 * Rejects when it is configured but cannot reach its store.
 */
export type RuntimeConnector = () => Promise<SluiceRuntime | null>;

/**
 * What the process's one `AsyncLocalStorage` holds: the execution scope (inside a run) and the
 * OpenTelemetry context kept there by Sluice's context manager (opaque here: the SDK layer
 * knows nothing of OpenTelemetry).
 */
export interface AsyncStore {
  readonly scope: ExecutionScope | undefined;
  readonly otel: unknown;
}

interface GlobalRuntime {
  als: AsyncLocalStorage<AsyncStore>;
  engines: SluiceRuntime[];
  /** Set by the package's entry points (`sluice`, `sluice/tako`): see `engine/connect.ts`. */
  connector?: RuntimeConnector;
}

// v2: the store became an {@link AsyncStore} (v1 held the scope itself).
const KEY = Symbol.for("sluice.runtime.v2");

/** The process-wide runtime record. */
export function globalRuntime(): GlobalRuntime {
  const g = globalThis as unknown as Record<symbol, GlobalRuntime | undefined>;
  let rt = g[KEY];
  if (!rt) {
    rt = { als: new AsyncLocalStorage<AsyncStore>(), engines: [] };
    g[KEY] = rt;
  }
  return rt;
}

/** The execution scope of the calling code, if it runs inside a workflow. */
export function currentScope(): ExecutionScope | undefined {
  return globalRuntime().als.getStore()?.scope;
}

/** Runs `fn` in execution scope `scope`, keeping the OpenTelemetry context of the caller. */
export function runInScope<T>(scope: ExecutionScope, fn: () => T): T {
  const { als } = globalRuntime();
  return als.run({ scope, otel: als.getStore()?.otel }, fn);
}

/**
 * The engine calls from this code should go to: the one running the current
 * execution, else the most recently started engine in this process.
 */
export function currentRuntime(): SluiceRuntime | undefined {
  const scope = currentScope();
  if (scope) return scope.runtime;
  const engines = globalRuntime().engines;
  return engines[engines.length - 1];
}

/**
 * Sets how {@link acquireRuntime} connects when no engine runs in this process. The
 * package's entry points set the environment connector (`engine/connect.ts`); the SDK
 * itself never opens a store.
 */
export function setRuntimeConnector(connector: RuntimeConnector): void {
  globalRuntime().connector = connector;
}

/**
 * The engine an `.enqueue()` or `signal()` goes to: {@link currentRuntime}, else one
 * opened by the process's connector; null when there is none.
 * @throws whatever the connector throws when the configured store cannot be reached
 */
async function acquireRuntime(): Promise<SluiceRuntime | null> {
  const runtime = currentRuntime();
  if (runtime) return runtime;
  const connector = globalRuntime().connector;
  return connector ? connector() : null;
}

/**
 * The runtime an SDK call goes to ({@link acquireRuntime}).
 * @param what the call, for the message (e.g. `enqueueing "fulfill-order"`)
 * @throws the `unavailable` error when there is none, with the connector's error as its cause
 */
export async function requireRuntime(what: string, unavailable: UnavailableErrorFactory): Promise<SluiceRuntime> {
  let runtime: SluiceRuntime | null;
  try {
    runtime = await acquireRuntime();
  } catch (err) {
    throw unavailable(what, err);
  }
  if (!runtime) throw unavailable(what);
  return runtime;
}

/** The error of `sluice`'s own `.enqueue()` and `signal()` when they have nowhere to go. */
export const sluiceUnavailable: UnavailableErrorFactory = (what, cause) => new SluiceUnavailableError(what, { cause });

/**
 * Makes `engine` the process default: called by an engine's `start()`, and by
 * `engine/connect.ts` for the producer engine it opens (never started). Never called by
 * a constructor: creating an engine changes nothing process-wide.
 */
export function installRuntime(engine: SluiceRuntime): void {
  const engines = globalRuntime().engines;
  if (!engines.includes(engine)) engines.push(engine);
}

/** Removes `engine` from the process (called when it stops). */
export function uninstallRuntime(engine: SluiceRuntime): void {
  const engines = globalRuntime().engines;
  const i = engines.indexOf(engine);
  if (i >= 0) engines.splice(i, 1);
}
