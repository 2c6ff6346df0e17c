/**
 * The durable-workflow part of Tako's JavaScript SDK (seed 002), importable as
 * `sluice/tako` and through the `tako.sh` package: `defineWorkflow`, `signal` and
 * `TakoError`. It is Sluice's own API; only the error a server-only call throws when it
 * has nowhere to go differs (`TakoError("TAKO_UNAVAILABLE")`).
 */
import type { WorkflowDefinition, WorkflowOptions } from "../workflow.js";
import { createWorkflow } from "../workflow.js";
import { sendSignal } from "../signal.js";
import type { SignalOptions } from "../runtime.js";
import { takoUnavailable } from "./errors.js";

export { TakoError, TAKO_ERROR_CODES } from "./errors.js";
export type { TakoErrorCode } from "./errors.js";
export type { WorkflowDefinition, WorkflowOptions, AnyWorkflow } from "../workflow.js";
export type { WorkflowContext, StepContext, StepOptions, WaitOptions, Logger } from "../context.js";
export type { EnqueueOptions, RunHandle } from "../types.js";
export type { SignalOptions } from "../runtime.js";

/**
 * Defines a durable workflow (seed 002). The payload type flows into `.enqueue(payload)`.
 * @example
 * export default defineWorkflow<{ orderId: string }>("fulfill-order", {
 *   retries: 4,
 *   handler: async (payload, ctx) => { await ctx.run("charge", () => charge(payload.orderId)); },
 * });
 * @throws InvalidInputError for a bad name, retries or backoff; InvalidScheduleError for a bad schedule
 */
export function defineWorkflow<P = unknown, R = unknown>(
  name: string,
  options: WorkflowOptions<P, R>,
): WorkflowDefinition<P, R> {
  return createWorkflow(name, options, takoUnavailable);
}

/**
 * Wakes every run waiting on `event` and returns how many it woke. Runs not yet waiting do not
 * see it, unless `options.buffer` keeps it for the next `waitFor` (as `sluice`'s `signal`; see
 * {@link SignalOptions}).
 * @example const woken = await signal(`approval:order-${orderId}`, { approved: true, by: userId });
 * @example await signal(`paid:${orderId}`, { amount }, { buffer: "1h" }); // even if the run is not waiting yet
 * @throws TakoError `TAKO_UNAVAILABLE` when no Sluice engine runs in this process and none is configured
 * @throws InvalidInputError for an empty event name; InvalidDurationError for a bad `buffer`
 */
export function signal(event: string, payload?: unknown, options?: SignalOptions): Promise<number> {
  return sendSignal(event, payload, takoUnavailable, options);
}
