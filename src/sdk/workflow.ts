import { type BackoffPolicy, DEFAULT_RUN_RETRIES, RUN_BACKOFF, resolveBackoff } from "../core/backoff.js";
import { isAcceptedDuration } from "../core/time.js";
import { type CronSchedule, parseSchedule, type ScheduleInput } from "../core/cron.js";
import { validateWorkflowName } from "../core/ids.js";
import type { ParamSpec } from "../core/params.js";
import type { RunId } from "../core/ids.js";
import type { WorkflowContext } from "./context.js";
import { InvalidInputError, type UnavailableErrorFactory } from "./errors.js";
import { currentRuntime, requireRuntime, sluiceUnavailable } from "./runtime.js";
import type { EnqueueOptions, RunHandle } from "./types.js";

/** Options of {@link defineWorkflow}. */
export interface WorkflowOptions<P, R> {
  /** Retries after the first attempt. Default 2 (three attempts in all). */
  retries?: number;
  /** Run-level retry timing in milliseconds. Default base 1 s, max 1 h. */
  backoff?: Partial<BackoffPolicy>;
  /** Worker group; omitted means the default group. */
  worker?: string;
  /** Five-field cron, e.g. `"0 9 * * 1-5"`, or `{ cron, timezone }` (default UTC). */
  schedule?: ScheduleInput;
  /** Keep this workflow's queue and cron per server (multi-server Postgres setups). */
  local?: boolean;
  /** The durable handler. Return a JSON-serialisable result. */
  handler: (payload: P, ctx: WorkflowContext) => R | Promise<R>;
  /** @internal Set by the loader: where the workflow's code lives and its task functions. */
  module?: WorkflowModule;
  /** @internal Set by the loader for workflows as code: the named parameters a payload maps onto. */
  params?: ParamSpec | null;
}

/**
 * Facts about the module a workflow came from: its path (relative to the project
 * root) and its module-scope functions by name, so `task(fn)` children can find `fn`
 * in another process.
 */
export interface WorkflowModule {
  path: string | null;
  functions: Map<string, (...args: any[]) => unknown>;
}

const BRAND = Symbol.for("sluice.workflow.v1");

/** A defined workflow: its resolved settings plus typed `enqueue`/`start`. */
export interface WorkflowDefinition<P = unknown, R = unknown> {
  readonly [BRAND]: true;
  readonly name: string;
  readonly handler: (payload: P, ctx: WorkflowContext) => R | Promise<R>;
  readonly maxAttempts: number;
  readonly backoff: BackoffPolicy;
  readonly queue: string;
  readonly schedule: CronSchedule | null;
  readonly local: boolean;
  /** Module facts for workflows-as-code (task functions, `__mod/` scripts); absent for plain handlers. */
  readonly module: WorkflowModule | null;
  /** Named parameters an enqueue's payload is checked against (workflows as code); null for a plain payload. */
  readonly params: ParamSpec | null;
  /**
   * Enqueues a run and returns its id (your `id` when given). Repeating an `id` with the
   * same payload returns the same run, in any status.
   * Outside an engine's process it enqueues into the database named by
   * `SLUICE_DATABASE` / `SLUICE_DATABASE_URL` (a producer: no worker runs here).
   * @throws SluiceUnavailableError (`TakoError("TAKO_UNAVAILABLE")` from `tako.sh`) when
   *   no engine runs in this process and none is configured, or its database cannot be reached
   * @throws RunIdConflictError when `id` belongs to another workflow or payload
   * @example const runId = await fulfillOrder.enqueue({ orderId: "ord_123" });
   */
  enqueue(payload: P, options?: EnqueueOptions): Promise<RunId>;
  /** Like {@link enqueue} but returns a handle to await the result and see whether it was deduplicated. */
  start(payload: P, options?: EnqueueOptions): Promise<RunHandle<Awaited<R>>>;
}

/** Any workflow definition, whatever its payload and result types. */
// biome-ignore lint: variance requires any here
export type AnyWorkflow = WorkflowDefinition<any, any>;

/**
 * Defines a durable workflow. The payload type flows into `.enqueue(payload)`.
 * @example
 * export default defineWorkflow<{ orderId: string }>("fulfill-order", {
 *   retries: 4,
 *   handler: async (payload, ctx) => {
 *     const order = await ctx.run("load-order", () => db.orders.find(payload.orderId));
 *     await ctx.run("charge", () => payments.charge({ orderId: order.id, idempotencyKey: `${ctx.runId}:charge` }));
 *   },
 * });
 * @throws InvalidInputError for a bad name, retries or backoff; InvalidScheduleError for a bad schedule
 */
export function defineWorkflow<P = unknown, R = unknown>(
  name: string,
  options: WorkflowOptions<P, R>,
): WorkflowDefinition<P, R> {
  return createWorkflow(name, options, sluiceUnavailable);
}

/**
 * {@link defineWorkflow} with the error `.enqueue()` throws when it has nowhere to go;
 * a compatibility entry point passes its own (`tako.sh`: `TakoError`).
 */
export function createWorkflow<P, R>(
  name: string,
  options: WorkflowOptions<P, R>,
  unavailable: UnavailableErrorFactory,
): WorkflowDefinition<P, R> {
  validateWorkflowName(name);
  if (!options || typeof options.handler !== "function") {
    throw new InvalidInputError(
      `workflow ${JSON.stringify(name)} needs a handler: defineWorkflow("${name}", { handler: async (payload, ctx) => { ... } })`,
    );
  }
  const retries = options.retries ?? DEFAULT_RUN_RETRIES;
  validateRetries(retries, `retries of workflow "${name}"`);
  const backoff = resolveBackoff(options.backoff, RUN_BACKOFF);
  validateBackoff(backoff, `backoff of workflow "${name}"`);
  const def: WorkflowDefinition<P, R> = {
    [BRAND]: true,
    name,
    handler: options.handler,
    maxAttempts: retries + 1,
    backoff,
    queue: options.worker ?? "default",
    schedule: options.schedule === undefined ? null : parseSchedule(options.schedule),
    local: options.local ?? false,
    module: options.module ?? null,
    params: options.params ?? null,
    async enqueue(payload, enqueueOptions) {
      return (await def.start(payload, enqueueOptions)).id;
    },
    async start(payload, enqueueOptions) {
      // An engine of this process (the usual case) without an `await`, else the connector's.
      const runtime = currentRuntime() ?? (await requireRuntime(`enqueueing ${JSON.stringify(name)}`, unavailable));
      return (await runtime.enqueueRun(def, payload, enqueueOptions)) as RunHandle<Awaited<R>>;
    },
  };
  return Object.freeze(def);
}

/** True when `value` is a workflow made by {@link defineWorkflow} (from any copy of the SDK). */
export function isWorkflow(value: unknown): value is AnyWorkflow {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** @throws InvalidInputError unless `n` is a whole number in 0..1000 */
export function validateRetries(n: unknown, what: string): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 1000) {
    throw new InvalidInputError(`${what} must be a whole number from 0 to 1000, got ${JSON.stringify(n)}`, {
      code: "INVALID_RETRIES",
    });
  }
  return n;
}

/**
 * Checks a backoff policy: 0 <= base <= max, each at most 1000 years.
 * @throws InvalidInputError (`INVALID_BACKOFF`)
 */
export function validateBackoff(b: BackoffPolicy, what: string): void {
  if (!(isAcceptedDuration(b.base) && isAcceptedDuration(b.max) && b.max >= b.base)) {
    throw new InvalidInputError(
      `${what} must have 0 <= base <= max (milliseconds, at most 1000 years), got ${JSON.stringify(b)}`,
      { code: "INVALID_BACKOFF" },
    );
  }
}
