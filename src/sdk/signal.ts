import { type UnavailableErrorFactory } from "./errors.js";
import { requireRuntime, type SignalOptions, sluiceUnavailable } from "./runtime.js";

/**
 * Wakes every run waiting on `event` (via `ctx.waitFor(event)`) with `payload`, and
 * returns how many runs it woke. Runs not yet waiting do not see it, unless `options.buffer`
 * keeps it for the next `waitFor` (see {@link SignalOptions}). Outside an engine's
 * process it signals through the database named by `SLUICE_DATABASE` / `SLUICE_DATABASE_URL`.
 * @example const woken = await signal(`approval:order-${orderId}`, { approved: true, by: userId });
 * @example await signal(`paid:${orderId}`, { amount }, { buffer: "1h" }); // even if the run is not waiting yet
 * @throws SluiceUnavailableError when no engine runs in this process and none is configured
 */
export async function signal(event: string, payload?: unknown, options?: SignalOptions): Promise<number> {
  return sendSignal(event, payload, sluiceUnavailable, options);
}

/** {@link signal} with the error thrown when it has nowhere to go (`tako.sh`: `TakoError`). */
export async function sendSignal(
  event: string,
  payload: unknown,
  unavailable: UnavailableErrorFactory,
  options?: SignalOptions,
): Promise<number> {
  const runtime = await requireRuntime(`signal(${JSON.stringify(event)})`, unavailable);
  return runtime.signal(event, payload, options);
}
