/**
 * Validation of request bodies and query strings: each failure is an
 * {@link InvalidInputError} that names the field and says what to send.
 */
import { isAcceptedTime } from "../core/time.js";
import { InvalidInputError } from "../sdk/errors.js";
import { parseStatusFilter } from "../core/status-filter.js";
import type { RunFilter } from "../store/types.js";

/** A JSON body that must be an object (an absent body is `{}`). */
export function bodyObject(body: unknown, example: string): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new InvalidInputError(`the body must be a JSON object, e.g. ${example}`, { code: "INVALID_BODY" });
  }
  return body as Record<string, unknown>;
}

/** Refuses fields that are not in `known` (a typo should not be silently ignored). */
export function onlyFields(body: Record<string, unknown>, known: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!known.includes(k))
      throw new InvalidInputError(`unknown field "${k}" (known: ${known.join(", ")})`, { code: "INVALID_BODY" });
  }
}

/** An optional string field. */
export function optString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new InvalidInputError(`"${field}" must be a string`, { code: "INVALID_BODY" });
  return v;
}

/** A required non-empty string field. */
export function reqString(body: Record<string, unknown>, field: string, example: string): string {
  const v = optString(body, field);
  if (v === undefined || v === "")
    throw new InvalidInputError(`"${field}" is required, e.g. ${example}`, { code: "INVALID_BODY" });
  return v;
}

/** An optional whole number field within bounds. */
export function optInt(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidInputError(`"${field}" must be a whole number from ${min} to ${max}`, { code: "INVALID_BODY" });
  }
  return v;
}

/** A time given as an ISO string or epoch milliseconds. */
export function parseTime(value: unknown, field: string): number {
  const t =
    typeof value === "number"
      ? value
      : typeof value === "string"
        ? /^\d{10,}$/.test(value)
          ? Number(value)
          : Date.parse(value)
        : Number.NaN;
  if (isAcceptedTime(t)) return t;
  throw new InvalidInputError(
    `"${field}" must be an ISO time (2026-12-01T09:00:00Z) or epoch milliseconds, between 1970 and 9999`,
    { code: "INVALID_TIME" },
  );
}

/** A run listing request parsed from the query string. */
export interface RunListQuery {
  filter: RunFilter;
  limit: number;
  /** Only runs without a parent (no child tasks). */
  topLevel: boolean;
}

/** Parses `GET /api/runs` query parameters. */
export function parseRunListQuery(q: Record<string, string | undefined>): RunListQuery {
  const filter: RunFilter = {};
  if (q.status) filter.status = parseStatusFilter(q.status, '"status"');
  if (q.workflow) filter.workflow = q.workflow;
  if (q.parent) filter.parentId = q.parent;
  if (q.createdAfter) filter.createdAfter = parseTime(q.createdAfter, "createdAfter");
  if (q.createdBefore) filter.createdBefore = parseTime(q.createdBefore, "createdBefore");
  if (q.cursor) {
    if (!/^\d{1,15}$/.test(q.cursor))
      throw new InvalidInputError(`"cursor" must be the nextCursor of a previous page`, { code: "INVALID_CURSOR" });
    filter.beforeSeq = Number(q.cursor);
  }
  let limit = 50;
  if (q.limit !== undefined) {
    limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new InvalidInputError(`"limit" must be a whole number from 1 to 500`, { code: "INVALID_LIMIT" });
  }
  const topLevel = q.topLevel === "true" || q.topLevel === "1";
  if (topLevel && q.parent)
    throw new InvalidInputError(`"topLevel" and "parent" exclude each other`, { code: "INVALID_QUERY" });
  return { filter, limit, topLevel };
}
