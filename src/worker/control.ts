/**
 * Control-flow signals thrown through user code, and the marker that makes an
 * error terminal (fail the run without retry).
 */
import { SluiceError } from "../sdk/errors.js";

const TERMINAL = Symbol.for("sluice.terminal.v1");

/** Thrown by `ctx.bail`: the run ends `cancelled`. */
export class BailSignal extends SluiceError {
  constructor(readonly reason: string | null) {
    super("BAILED", reason ? `bailed: ${reason}` : "bailed");
  }
}

/** Thrown by `ctx.fail`: the run ends `failed` with `error`. */
export class FailSignal extends SluiceError {
  constructor(readonly error: unknown) {
    super("FAILED", error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * The process running a run's code died (an out-of-process runtime such as the Python
 * host): not the code's fault, so the attempt is retried like a lost worker, never marked
 * terminal by the wrappers that make code errors final.
 */
export class RuntimeLostError extends SluiceError {}

/** Marks `err` so that, if it escapes the handler, the run fails without retry. Returns it. */
export function markTerminal<E>(err: E): E {
  if (err instanceof RuntimeLostError) return err;
  if (err !== null && typeof err === "object") {
    try {
      Object.defineProperty(err, TERMINAL, { value: true, enumerable: false });
    } catch {
      // frozen error objects cannot be marked; they follow the normal retry policy
    }
  }
  return err;
}

/**
 * True when `err` must fail the run without retry: it was marked ({@link markTerminal}), or its
 * class says so (`SluiceError.terminal`: bad input, `TerminalError`, non-determinism). Decided by
 * class, never by code: a user error with code `INVALID_ARGUMENT` is retried like any other.
 */
export function isTerminalError(err: unknown): boolean {
  if (err === null || typeof err !== "object") return false;
  if ((err as Record<symbol, unknown>)[TERMINAL] === true) return true;
  return err instanceof SluiceError && err.terminal;
}
