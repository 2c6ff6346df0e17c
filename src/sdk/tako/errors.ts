/**
 * `TakoError`, the error class of Tako's JavaScript SDK (seed 002), with the codes the
 * seed names. Sluice raises it from the `tako.sh` entry point only; the same failure
 * from `sluice` is a `SluiceUnavailableError`.
 */
import { SluiceError, unavailableMessage } from "../errors.js";

/**
 * The codes of {@link TakoError}. Seed 002 names one: `TAKO_UNAVAILABLE`, thrown by a
 * server-only call (`.enqueue()`, `signal()`) made where no Tako runtime is installed.
 */
export type TakoErrorCode = "TAKO_UNAVAILABLE";

/** Every {@link TakoErrorCode}, for code that checks a value at run time. */
export const TAKO_ERROR_CODES: readonly TakoErrorCode[] = ["TAKO_UNAVAILABLE"];

const DEFAULT_MESSAGES: Record<TakoErrorCode, string> = {
  TAKO_UNAVAILABLE: unavailableMessage("this call"),
};

/**
 * An error of the `tako.sh` API. Match on `code`, never on the message.
 * @example
 * try { await fulfillOrder.enqueue({ orderId }); }
 * catch (e) { if (e instanceof TakoError && e.code === "TAKO_UNAVAILABLE") return retryLater(); throw e; }
 */
export class TakoError extends SluiceError<TakoErrorCode> {
  /** `new TakoError("TAKO_UNAVAILABLE")`, as the seed writes it; the message defaults to the fix. */
  constructor(code: TakoErrorCode, message?: string, options?: { cause?: unknown }) {
    super(code, message ?? DEFAULT_MESSAGES[code] ?? code, options);
  }
}

/** The `TAKO_UNAVAILABLE` error of a `tako.sh` call that has nowhere to go (see `unavailableMessage`). */
export function takoUnavailable(what: string, cause?: unknown): TakoError {
  return new TakoError("TAKO_UNAVAILABLE", unavailableMessage(what, cause), { cause });
}
