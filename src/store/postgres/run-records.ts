/**
 * Run records built from what the store already holds instead of read back whole: a run
 * created leased (`claimFor`) from its request, and a run a claim just finished from the
 * record its claim returned. Only the columns Postgres decides (sequence, pinned version,
 * times, the children count) come back from the statement: parsing 33 columns per row was
 * the largest part of the client's work on a short run (docs/PERFORMANCE.md, fifth pass).
 */
import type { SerializedError } from "../../core/serde.js";
import type { EnqueueRequest, RunRecord } from "../types.js";

/** What the INSERT of a run created leased returns besides its id (`RETURNING` of `enqueue.ts`). */
export interface LeasedRow {
  seq: number;
  version: string | null;
  created_at: number;
  lease_expires_at: number | null;
}

/** A new run's parent link (children of a suspending run). */
export interface ParentLink {
  id: string;
  key: string;
  rootId: string;
}

/** The run `req` created leased, as `toRun` would read it back. */
export function leasedRun(req: EnqueueRequest, parent: ParentLink | undefined, row: LeasedRow): RunRecord {
  return {
    id: req.id,
    seq: row.seq,
    workflow: req.workflow,
    task: req.task ?? null,
    queue: req.queue,
    payload: req.payload,
    status: "running",
    priority: req.priority ?? 0,
    readyAt: null,
    attempt: 1,
    maxAttempts: req.maxAttempts,
    backoff: { base: req.backoff.base, max: req.backoff.max },
    version: row.version,
    parentId: parent?.id ?? null,
    parentKey: parent?.key ?? null,
    rootId: parent?.rootId ?? req.id,
    outstanding: 0,
    options: req.options ?? null,
    result: null,
    error: null,
    leaseOwner: req.claimFor?.workerId ?? null,
    leaseExpiresAt: row.lease_expires_at,
    createdBy: req.createdBy ?? null,
    cacheKey: req.cacheKey ?? null,
    concurrency: req.concurrency
      ? { key: req.concurrency.key, limit: req.concurrency.limit ?? 1, windowMs: req.concurrency.windowMs ?? null }
      : null,
    createdAt: row.created_at,
    startedAt: row.created_at,
    finishedAt: null,
    updatedAt: row.created_at,
  };
}

/**
 * The run `claimed` (as its claim returned it) after its claim wrote a final outcome:
 * `outstanding` is the one column that changes under a claim (its children finishing),
 * so it comes back from the UPDATE with the time it wrote.
 */
export function finishedRun(
  claimed: RunRecord,
  status: "succeeded" | "failed" | "cancelled",
  result: string | null,
  errorText: string | null,
  row: { outstanding: number; finished_at: number },
): RunRecord {
  return {
    ...claimed,
    status,
    result,
    // As a read would parse it back (a failure's error object may carry more than its JSON).
    error: errorText === null ? null : (JSON.parse(errorText) as SerializedError),
    readyAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    outstanding: row.outstanding,
    finishedAt: row.finished_at,
    updatedAt: row.finished_at,
  };
}
