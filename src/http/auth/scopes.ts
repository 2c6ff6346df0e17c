/**
 * API token scopes, from least to most: `metrics` (scrape `GET /metrics` and nothing else:
 * the token to give Prometheus), `read` (look), `operate` (enqueue, cancel,
 * retry, signal, approve, pause schedules), `worker` (an out-of-process worker: register
 * workflows, claim runs and report on them, plus what `operate` allows, since workflow
 * code enqueues and signals), `admin` (manage tokens). A scope includes every scope below it.
 */
import { InvalidInputError } from "../../sdk/errors.js";

/** What a token may do. */
export type Scope = "metrics" | "read" | "operate" | "worker" | "admin";

/** Every scope, least first. */
const SCOPES: readonly Scope[] = ["metrics", "read", "operate", "worker", "admin"];

/** True when a token with `has` may call an endpoint that needs `needs`. */
export function scopeAllows(has: Scope, needs: Scope): boolean {
  return SCOPES.indexOf(has) >= SCOPES.indexOf(needs);
}

/**
 * Checks a scope name.
 * @throws InvalidInputError (code INVALID_SCOPE)
 */
export function parseScope(value: unknown): Scope {
  if (typeof value === "string" && (SCOPES as readonly string[]).includes(value)) return value as Scope;
  throw new InvalidInputError(`unknown scope ${JSON.stringify(value)}: use metrics, read, operate, worker or admin`, {
    code: "INVALID_SCOPE",
  });
}
