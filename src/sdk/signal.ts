import { SluiceUnavailableError } from "./errors.js";
import { currentRuntime } from "./runtime.js";

/**
 * Wakes every run waiting on `event` (via `ctx.waitFor(event)`) with `payload`, and
 * returns how many runs it woke. Runs not yet waiting do not see it.
 * @example const woken = await signal(`approval:order-${orderId}`, { approved: true, by: userId });
 * @throws SluiceUnavailableError when no engine runs in this process
 */
export async function signal(event: string, payload?: unknown): Promise<number> {
  const runtime = currentRuntime();
  if (!runtime) throw new SluiceUnavailableError(`signal(${JSON.stringify(event)})`);
  return runtime.signal(event, payload);
}
