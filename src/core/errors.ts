/**
 * The base of Sluice's named errors and the input errors that pure logic raises. Every error
 * carries a stable string `code` (match on it, never on the message), an optional `cause`, and a
 * message that says what to do about it. `sdk/errors.ts` re-exports these with the rest of the
 * public error classes; `core/serde.ts` converts errors to and from their serialised form.
 */

/**
 * Base class of every error Sluice raises. A family of errors narrows `C` to its own
 * codes: `class AssetError extends SluiceError<AssetErrorCode> {}`.
 */
export class SluiceError<C extends string = string> extends Error {
  /** Stable machine-readable code, e.g. `"UNKNOWN_WORKFLOW"`. */
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }

  /**
   * True when a run that this error escapes must fail at once instead of being retried: the
   * same call fails the same way on every attempt (bad input, `TerminalError`, a non-deterministic
   * replay). The one rule the worker applies (`worker/control.ts` `isTerminalError`); a getter, so
   * it is not serialised with the error's fields.
   */
  get terminal(): boolean {
    return false;
  }
}

/** Input given to an API or the CLI is malformed (bad JSON, bad duration, bad id...). Not retryable. */
export class InvalidInputError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? "INVALID_INPUT", message, options);
  }

  /** Bad input fails the same way on every attempt: never retried. */
  override get terminal(): boolean {
    return true;
  }
}

/** A duration string or number could not be understood. */
export class InvalidDurationError extends InvalidInputError {
  /** `hint` replaces the default advice (e.g. for a duration that is too long). */
  constructor(input: unknown, options?: { cause?: unknown; hint?: string }) {
    super(
      `invalid duration ${JSON.stringify(input)}: ${options?.hint ?? 'use milliseconds as a number, or a string like "500ms", "30s", "5m", "2h", "7d"'}`,
      { cause: options?.cause, code: "INVALID_DURATION" },
    );
  }
}

/** A time (`runAt`, a wake time) is not a time, or is outside the accepted range (1970–9999). */
export class InvalidTimeError extends InvalidInputError {
  constructor(field: string, input: unknown, options?: { cause?: unknown }) {
    super(
      `invalid ${field} ${JSON.stringify(input)}: use a Date, epoch milliseconds, or an ISO time such as "2026-12-01T09:00:00Z", between 1970 and 9999`,
      { ...options, code: "INVALID_TIME" },
    );
  }
}

/** A payload or result is not JSON-serialisable or is too large. */
export class InvalidPayloadError extends InvalidInputError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, { code: options?.code ?? "INVALID_PAYLOAD", cause: options?.cause });
  }
}

/** A payload, step result or run result exceeds the configured size limit. */
export class PayloadTooLargeError extends InvalidPayloadError {
  constructor(what: string, bytes: number, limit: number) {
    super(
      `${what} is ${bytes} bytes, over the ${limit}-byte limit: store large data elsewhere (a file or object store) and pass a reference`,
      { code: "PAYLOAD_TOO_LARGE" },
    );
  }
}

/** A cron expression or time zone is invalid. */
export class InvalidScheduleError extends InvalidInputError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code: "INVALID_SCHEDULE" });
  }
}
