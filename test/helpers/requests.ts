/**
 * Enqueue requests for store-level tests: a run of workflow `wf` on the default queue with an
 * empty payload, 3 attempts and 1 s backoff, unless `over` says otherwise.
 */
import type { EnqueueRequest } from "../../src/store/types.js";

/** A request to create run `id` (no deduplication), with `over` applied. */
export function enqueueRequest(id: string, over: Partial<EnqueueRequest> = {}): EnqueueRequest {
  return {
    id,
    dedupe: false,
    workflow: "wf",
    queue: "default",
    payload: "{}",
    maxAttempts: 3,
    backoff: { base: 1000, max: 1000 },
    ...over,
  };
}
