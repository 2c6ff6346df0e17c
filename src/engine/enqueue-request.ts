/**
 * Turning a caller's `enqueue(payload, options)` into a store request: validation
 * and defaults, with no I/O.
 */
import type { Duration } from "../core/duration.js";
import { durationOption } from "../core/duration-option.js";
import type { BackoffPolicy } from "../core/backoff.js";
import { newRunId, validateRunId } from "../core/ids.js";
import { checkArguments, type ParamSpec } from "../core/params.js";
import { encodeValue } from "../core/serde.js";
import { isAcceptedTime } from "../core/time.js";
import { InvalidInputError, InvalidTimeError } from "../sdk/errors.js";
import type { EnqueueManyOptions, EnqueueOptions } from "../sdk/types.js";
import { validateRetries } from "../sdk/workflow.js";
import type { EnqueueRequest } from "../store/types.js";

/** The per-workflow defaults a request starts from. */
export interface WorkflowDefaults {
  name: string;
  queue: string;
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** Named parameters the payload must fit (workflows as code), if known. */
  params?: ParamSpec | null;
}

/**
 * Splits a batch enqueue's options into one {@link EnqueueOptions} per payload: the shared
 * settings plus that payload's id from `ids` (or the single `id` of a one-payload batch).
 * @throws InvalidInputError (`INVALID_IDS`) when `ids` does not match the payloads one to one,
 *   repeats an id, or comes with `id`; or when `id` is given for several payloads
 */
export function perRunOptions(count: number, options: EnqueueManyOptions = {}): EnqueueOptions[] {
  const { ids, id, ...shared } = options;
  if (id !== undefined && ids !== undefined)
    throw new InvalidInputError("give either `id` or `ids`, not both", { code: "INVALID_IDS" });
  if (id !== undefined) {
    if (count > 1)
      throw new InvalidInputError("enqueueMany cannot give every run the same id; pass `ids` with one id per payload", {
        code: "INVALID_IDS",
      });
    return Array.from({ length: count }, () => ({ ...shared, id }));
  }
  if (ids === undefined) return Array.from({ length: count }, () => shared);
  if (!Array.isArray(ids) || ids.length !== count)
    throw new InvalidInputError(
      `\`ids\` must hold one id per payload: ${count} payload(s), ${Array.isArray(ids) ? ids.length : "no"} id(s)`,
      { code: "INVALID_IDS" },
    );
  const seen = new Set<string>();
  for (const runId of ids) {
    if (seen.has(runId))
      throw new InvalidInputError(`\`ids\` repeats the run id ${JSON.stringify(runId)}; each run needs its own`, {
        code: "INVALID_IDS",
      });
    seen.add(runId);
  }
  return ids.map((runId) => ({ ...shared, id: runId }));
}

/**
 * Validates and builds an {@link EnqueueRequest}.
 * @throws InvalidInputError / InvalidPayloadError / PayloadTooLargeError naming the bad field;
 *   InvalidArgumentsError when the payload names a parameter the workflow does not have or misses a required one
 */
export function buildEnqueueRequest(
  wf: WorkflowDefaults,
  payload: unknown,
  options: EnqueueOptions = {},
  maxValueBytes?: number,
): EnqueueRequest {
  if (wf.params) checkArguments(wf.name, wf.params, payload);
  const id = options.id === undefined ? newRunId() : validateRunId(options.id);
  const retries = options.retries === undefined ? undefined : validateRetries(options.retries, "retries");
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority))
    throw new InvalidInputError(`priority must be a whole number, got ${JSON.stringify(priority)}`, {
      code: "INVALID_PRIORITY",
    });
  const request: EnqueueRequest = {
    id,
    dedupe: options.id !== undefined,
    workflow: wf.name,
    queue: wf.queue,
    payload: encodeValue(payload ?? null, `payload of ${JSON.stringify(wf.name)}`, maxValueBytes),
    priority,
    maxAttempts: retries === undefined ? wf.maxAttempts : retries + 1,
    backoff: wf.backoff,
    createdBy: options.createdBy ?? null,
  };
  if (options.runAt !== undefined) request.runAt = parseRunAt(options.runAt);
  if (options.concurrency) request.concurrency = validateConcurrency(options.concurrency);
  return request;
}

/**
 * Reads a `runAt`: a Date, epoch milliseconds, or an ISO-8601 string, in 1970–9999.
 * @throws InvalidTimeError (`INVALID_TIME`) for anything else
 */
export function parseRunAt(value: Date | number | string): number {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === "number"
        ? value
        : typeof value === "string"
          ? Date.parse(value)
          : Number.NaN;
  if (!isAcceptedTime(ms)) throw new InvalidTimeError("runAt", value);
  return Math.round(ms);
}

/**
 * Checks a run's concurrency limit: a non-empty key, a whole limit of at least 1, an optional whole window.
 * @throws InvalidInputError (`INVALID_CONCURRENCY`)
 */
function validateConcurrency(c: { key: string; limit: number; window?: Duration | null; windowMs?: number | null }): {
  key: string;
  limit: number;
  windowMs: number | null;
} {
  const bad = (what: string) =>
    new InvalidInputError(`concurrency ${what}, e.g. { key: "cards", limit: 1 }`, { code: "INVALID_CONCURRENCY" });
  if (typeof c.key !== "string" || c.key === "") throw bad("needs a non-empty key");
  if (!Number.isInteger(c.limit) || c.limit < 1)
    throw bad(`limit must be a whole number of at least 1, got ${c.limit}`);
  if (c.window == null && c.windowMs != null && (!Number.isInteger(c.windowMs) || c.windowMs < 1))
    throw bad(`windowMs must be a whole number of ms, got ${c.windowMs}`);
  const w = durationOption(c.window ?? undefined, c.windowMs ?? undefined) ?? null;
  if (w !== null && w < 1) throw bad(`window must be at least 1 ms, got ${JSON.stringify(c.window)}`);
  return { key: c.key, limit: c.limit, windowMs: w };
}
