import { type UnavailableErrorFactory } from "./errors.js";
import { requireRuntime, sluiceUnavailable } from "./runtime.js";

/**
 * Wakes every run waiting on `event` (via `ctx.waitFor(event)`) with `payload`, and
 * returns how many runs it woke. Runs not yet waiting do not see it. Outside an engine's
 * process it signals through the database named by `SLUICE_DATABASE` / `SLUICE_DATABASE_URL`.
 * @example const woken = await signal(`approval:order-${orderId}`, { approved: true, by: userId });
 * @throws SluiceUnavailableError when no engine runs in this process and none is configured
 */
export async function signal(event: string, payload?: unknown): Promise<number> {
  return sendSignal(event, payload, sluiceUnavailable);
}

/** {@link signal} with the error thrown when it has nowhere to go (`tako.sh`: `TakoError`). */
export async function sendSignal(
  event: string,
  payload: unknown,
  unavailable: UnavailableErrorFactory,
): Promise<number> {
  const runtime = await requireRuntime(`signal(${JSON.stringify(event)})`, unavailable);
  return runtime.signal(event, payload);
}
