/**
 * The record of a run an enqueue created already leased to a worker (`claimFor`), built from
 * its request and the few columns the store decided, instead of read back whole: both stores
 * answer such an enqueue with it (reading the row back costs more than the insert).
 */
import type { EnqueueRequest, RunRecord } from "./types.js";

/** A new run's parent link (children of a suspending run). */
export interface ParentLink {
  id: string;
  key: string;
  rootId: string;
}

/** What the store decided when it inserted the run. */
export interface LeasedInsert {
  seq: number;
  /** The version pinned at the insert (the request's, else the workflow's current one). */
  version: string | null;
  createdAt: number;
  leaseExpiresAt: number | null;
}

/** The run `req` created leased, as a read of its row would give it. */
export function leasedRun(req: EnqueueRequest, parent: ParentLink | undefined, inserted: LeasedInsert): RunRecord {
  return {
    id: req.id,
    seq: inserted.seq,
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
    version: inserted.version,
    parentId: parent?.id ?? null,
    parentKey: parent?.key ?? null,
    rootId: parent?.rootId ?? req.id,
    outstanding: 0,
    options: req.options ?? null,
    result: null,
    error: null,
    leaseOwner: req.claimFor?.workerId ?? null,
    leaseExpiresAt: inserted.leaseExpiresAt,
    createdBy: req.createdBy ?? null,
    cacheKey: req.cacheKey ?? null,
    concurrency: req.concurrency
      ? { key: req.concurrency.key, limit: req.concurrency.limit ?? 1, windowMs: req.concurrency.windowMs ?? null }
      : null,
    createdAt: inserted.createdAt,
    startedAt: inserted.createdAt,
    finishedAt: null,
    updatedAt: inserted.createdAt,
  };
}
