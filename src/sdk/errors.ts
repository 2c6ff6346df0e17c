/**
 * Named error classes. Every error Sluice raises carries a stable string `code`
 * (match on it, never on the message), an optional `cause`, and a message that
 * says what to do about it.
 *
 * Errors cross process and storage boundaries as {@link SerializedError}; see
 * `core/serde.ts` for the one place that converts in both directions.
 */

// The base class and the input errors live in core (which imports nothing else of Sluice);
// they are part of the public SDK under the same names.
import { SluiceError } from "../core/errors.js";
import { isInternalWorkflow } from "../core/internal-workflows.js";

export {
  InvalidDurationError,
  InvalidInputError,
  InvalidPayloadError,
  InvalidScheduleError,
  InvalidTimeError,
  PayloadTooLargeError,
  SluiceError,
} from "../core/errors.js";

/** An enqueue reused a run id with a different workflow or payload. */
export class RunIdConflictError extends SluiceError {
  constructor(
    readonly runId: string,
    detail: string,
  ) {
    super(
      "RUN_ID_CONFLICT",
      `run id ${JSON.stringify(runId)} already belongs to a run with ${detail}: use a different id, or enqueue the same workflow and payload to get the existing run back`,
    );
  }
}

/**
 * No workflow with that name is registered (or it was, and its module was removed: `removed`).
 * The message lists the `known` workflows a user can enqueue: Sluice's own (`sluice:…`) are left out.
 */
export class UnknownWorkflowError extends SluiceError {
  constructor(
    readonly workflow: string,
    known: readonly string[] = [],
    readonly removed?: { source: string | null },
  ) {
    const offered = known.filter((name) => !isInternalWorkflow(name));
    const list = offered.length > 0 ? `; known workflows: ${offered.join(", ")}` : "; no workflows are registered yet";
    const what = removed
      ? `workflow ${JSON.stringify(workflow)} was removed${removed.source ? ` (its file ${removed.source} was deleted)` : ""}: restore it to enqueue it again (runs already started finish on their code)`
      : `unknown workflow ${JSON.stringify(workflow)}`;
    super("UNKNOWN_WORKFLOW", `${what}${list}`);
  }
}

/** No run with that id exists (or its history was deleted by retention). */
export class RunNotFoundError extends SluiceError {
  constructor(readonly runId: string) {
    super(
      "RUN_NOT_FOUND",
      `no run with id ${JSON.stringify(runId)}: check the id with \`sluice runs\` (finished runs are deleted after the retention period)`,
    );
  }
}

/**
 * A replay reached a checkpoint key whose recorded kind or target differs from
 * what the code now asks for: the workflow code is not deterministic, or it
 * changed under a running run. The run is failed, never advanced with wrong data.
 */
export class NonDeterminismError extends SluiceError {
  constructor(
    readonly key: string,
    readonly position: number,
    readonly recorded: string,
    readonly requested: string,
  ) {
    super(
      "NON_DETERMINISM",
      `non-deterministic replay at checkpoint ${JSON.stringify(key)} (call #${position + 1}): the history recorded ${recorded} but the code now calls ${requested}. Keep step names stable and move Date.now()/Math.random()/config reads into a step`,
    );
  }

  /** A replay that diverged diverges again: never retried. */
  override get terminal(): boolean {
    return true;
  }
}

/** The claim this attempt held was taken over (lease expired, run cancelled or reclaimed); its writes are refused. */
export class LeaseLostError extends SluiceError {
  constructor(readonly runId: string) {
    super(
      "LEASE_LOST",
      `lost the lease on run ${runId}: another attempt owns it now, so this attempt's writes were refused`,
    );
  }
}

/**
 * Raised by an SDK call made after the workflow already suspended (for example
 * from code racing a timer against a task). Never shown to code that simply awaits.
 */
export class WorkflowSuspendedError extends SluiceError {
  constructor() {
    super(
      "SUSPENDED",
      "the workflow has suspended at an earlier call and this execution is over; it will resume from its checkpoint",
    );
  }
}

/**
 * No Sluice engine runs in this process and none could be opened, so `.enqueue()` or
 * `signal()` has nowhere to go. With a `cause`, the process is configured for a
 * database (`SLUICE_DATABASE`, `SLUICE_DATABASE_URL`) that could not be reached.
 */
export class SluiceUnavailableError extends SluiceError {
  constructor(what: string, options?: { cause?: unknown }) {
    super("UNAVAILABLE", unavailableMessage(what, options?.cause), options);
  }
}

/**
 * The message of every "nowhere to send this" error (`SluiceUnavailableError`, and
 * `TakoError("TAKO_UNAVAILABLE")` from `tako.sh`): what failed and how to fix it.
 */
export function unavailableMessage(what: string, cause?: unknown): string {
  if (cause !== undefined) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return `${what} could not reach the Sluice database set by SLUICE_DATABASE_URL / SLUICE_DATABASE: ${reason}`;
  }
  return (
    `${what} needs a Sluice engine: set SLUICE_DATABASE (a SQLite file, e.g. the .sluice/sluice.db of \`sluice dev\`) ` +
    "or SLUICE_DATABASE_URL (postgres://…) in this process's environment, create one with createEngine(), " +
    "or run the code under `sluice dev` / `sluice worker`"
  );
}

/** Makes the error a server-only SDK call throws when it has nowhere to go (see {@link unavailableMessage}). */
export type UnavailableErrorFactory = (what: string, cause?: unknown) => Error;

/** The code version a run started with is no longer available to this worker. */
export class CodeVersionMissingError extends SluiceError {
  constructor(
    readonly workflow: string,
    readonly version: string,
  ) {
    super(
      "CODE_VERSION_MISSING",
      `run of ${JSON.stringify(workflow)} started on code version ${version}, which is no longer stored; it cannot finish on the code it started with and was not restarted on new code (that would re-run finished steps). Re-enqueue it if that is safe`,
    );
  }
}

/** Two workflows were registered under one name. */
export class DuplicateWorkflowError extends SluiceError {
  constructor(
    readonly workflow: string,
    where: string,
  ) {
    super(
      "DUPLICATE_WORKFLOW",
      `workflow name ${JSON.stringify(workflow)} is defined twice (${where}): workflow names must be unique, so neither runs; rename one of them`,
    );
  }
}

/**
 * Throw from a handler or step to fail the run at once, without retries
 * (the same outcome as `ctx.fail`).
 */
export class TerminalError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("TERMINAL", message, options);
  }

  /** Fails the run at once: never retried. */
  override get terminal(): boolean {
    return true;
  }
}

/** Awaiting a run's outcome found it failed; `error` is the run's serialised error. */
export class RunFailedError extends SluiceError {
  constructor(
    readonly runId: string,
    readonly error: { name: string; message: string; code?: string },
  ) {
    super("RUN_FAILED", `run ${runId} failed: ${error.message}`);
  }
}

/** Awaiting a run's outcome found it cancelled (bailed or cancelled by an operator). */
export class RunCancelledError extends SluiceError {
  constructor(
    readonly runId: string,
    readonly reason: string | null,
  ) {
    super("RUN_CANCELLED", `run ${runId} was cancelled${reason ? `: ${reason}` : ""}`);
  }
}

/** Waiting for a run's outcome took longer than the caller allowed. */
export class WaitTimeoutError extends SluiceError {
  constructor(
    readonly runId: string,
    ms: number,
  ) {
    super(
      "WAIT_TIMEOUT",
      `run ${runId} did not finish within ${ms} ms; it keeps running, check it later with \`sluice show ${runId}\``,
    );
  }
}

/** The engine was stopped while something still awaited a run's outcome; the run itself is unaffected. */
export class EngineStoppedError extends SluiceError {
  constructor(readonly runId: string | null = null) {
    super(
      "ENGINE_STOPPED",
      `the engine stopped before ${runId ? `run ${runId}` : "the run"} finished; the run keeps going: check it with \`sluice show${runId ? ` ${runId}` : ""}\``,
    );
  }
}
