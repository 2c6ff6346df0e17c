/**
 * The per-task options of a child run (`priority`, `timeout`, `cache_ttl`), as the engine
 * stores them: one rule for the built-in workflows-as-code host (`worker/wac-host.ts`) and
 * for the worker protocol's park children (`http/worker-protocol/claim-writes.ts`). Pure.
 */
import { createHash } from "node:crypto";

/** A task child's options in milliseconds; absent or 0: not set. */
export interface TaskRunOptions {
  /** The child fails once this long has passed since its first start (enforced by whoever runs it). */
  timeoutMs?: number | null;
  /** A run with the same cache key that succeeded within this long answers the call without a new child. */
  cacheTtlMs?: number | null;
}

/** The fields of a child's `ChildSpec` these options set (`options` before any trace context is added). */
export interface TaskRunFields {
  options: string | null;
  cacheKey?: string;
  cacheTtlMs?: number;
}

/**
 * The cache key of a task child: the same workflow, task function and encoded arguments
 * share it (so two calls with equal arguments hit the same cached result).
 */
export function taskCacheKey(workflow: string, task: string | null, payload: string | null): string {
  return createHash("sha256")
    .update(`${workflow}\n${task ?? ""}\n${payload}`)
    .digest("hex");
}

/** The stored fields of a task child with these options (`options.timeoutMs`, cache key and TTL). */
export function taskRunFields(
  workflow: string,
  task: string | null,
  payload: string | null,
  opts: TaskRunOptions,
): TaskRunFields {
  const out: TaskRunFields = { options: opts.timeoutMs ? JSON.stringify({ timeoutMs: opts.timeoutMs }) : null };
  if (opts.cacheTtlMs) {
    out.cacheKey = taskCacheKey(workflow, task, payload);
    out.cacheTtlMs = opts.cacheTtlMs;
  }
  return out;
}

/** The `timeoutMs` stored in a run's options, or null (absent, or options that are not JSON). */
export function runTimeoutMs(options: string | null): number | null {
  // Most options hold no timeout (a trace context, or nothing): not parsed for each claim.
  if (!options || !options.includes('"timeoutMs"')) return null;
  try {
    const t = (JSON.parse(options) as { timeoutMs?: unknown }).timeoutMs;
    return typeof t === "number" && t > 0 ? t : null;
  } catch {
    return null;
  }
}
