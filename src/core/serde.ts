import { InvalidPayloadError, PayloadTooLargeError, SluiceError } from "./errors.js";

/** Default size limit of payloads, step results and run results: 1 MiB. */
const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

/** The one shape errors take in storage, logs and the API. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: SerializedError;
  /** Extra JSON fields of the error (e.g. TaskError's step_key). */
  data?: Record<string, unknown>;
}

/**
 * Encodes a JSON value for storage. `undefined` encodes to `null` (SQL NULL), so a
 * step that returns nothing replays as `undefined`.
 * @throws InvalidPayloadError if the value is not JSON-serialisable
 * @throws PayloadTooLargeError above `limit` bytes
 */
export function encodeValue(value: unknown, what: string, limit = DEFAULT_MAX_VALUE_BYTES): string | null {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new InvalidPayloadError(
      `${what} is not JSON-serialisable (${(err as Error).message}): keep payloads and results to plain JSON data`,
      { cause: err },
    );
  }
  if (text === undefined) {
    throw new InvalidPayloadError(
      `${what} is not JSON-serialisable (a ${typeof value}): keep payloads and results to plain JSON data`,
    );
  }
  const bytes = text.length > limit / 4 ? Buffer.byteLength(text, "utf8") : text.length;
  if (bytes > limit) throw new PayloadTooLargeError(what, bytes, limit);
  return text;
}

/** Decodes what {@link encodeValue} stored (`null` column → `undefined`). */
export function decodeValue<T = unknown>(text: string | null | undefined): T {
  if (text === null || text === undefined) return undefined as T;
  return JSON.parse(text) as T;
}

/**
 * Parses JSON typed by a person (CLI argument, HTTP body).
 * @throws InvalidPayloadError naming what was wrong and where
 */
export function parseUserJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidPayloadError(
      `${what} is not valid JSON (${(err as Error).message}); example: '{"orderId": "ord_123"}'`,
      { cause: err },
    );
  }
}

/** Normalises anything thrown into a {@link SerializedError}. */
export function serializeError(err: unknown, depth = 0): SerializedError {
  if (err instanceof Error) {
    const out: SerializedError = { name: err.name, message: err.message };
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string") out.code = code;
    if (err.stack) out.stack = err.stack;
    if (err.cause !== undefined && depth < 4) out.cause = serializeError(err.cause, depth + 1);
    const data = errorData(err);
    if (data) out.data = data;
    return out;
  }
  if (typeof err === "string") return { name: "Error", message: err };
  let message: string;
  try {
    message = JSON.stringify(err) ?? String(err);
  } catch {
    message = String(err);
  }
  return { name: "NonError", message: `non-Error value thrown: ${message}` };
}

const ERROR_OWN_SKIP = new Set(["name", "message", "stack", "cause", "code"]);

function errorData(err: Error): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(err)) {
    if (ERROR_OWN_SKIP.has(key)) continue;
    const v = (err as unknown as Record<string, unknown>)[key];
    if (typeof v === "function") continue;
    try {
      JSON.stringify(v);
      data[key] = v;
      any = true;
    } catch {
      // not serialisable: skip this field rather than lose the whole error
    }
  }
  return any ? data : undefined;
}

/** Rebuilds an Error from its serialised form; `code` and `data` fields come back as properties. */
export function deserializeError(s: SerializedError): Error {
  const err = s.code
    ? new SluiceError(s.code, s.message, s.cause ? { cause: deserializeError(s.cause) } : undefined)
    : new Error(s.message, s.cause ? { cause: deserializeError(s.cause) } : undefined);
  err.name = s.name;
  if (s.stack) err.stack = s.stack;
  if (s.data) Object.assign(err, s.data);
  return err;
}
