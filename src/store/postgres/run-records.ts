/**
 * Run records built from what the store already holds instead of read back whole: a run a
 * claim just finished, from the record its claim returned (a run created leased is
 * `store/leased-run.ts`'s, shared with SQLite). Only the columns Postgres decides (sequence, pinned version,
 * times, the children count) come back from the statement: parsing 33 columns per row was
 * the largest part of the client's work on a short run (docs/PERFORMANCE.md, fifth pass).
 */
import type { SerializedError } from "../../core/serde.js";
import type { RunRecord } from "../types.js";

/** What the INSERT of a run created leased returns besides its id (`RETURNING` of `enqueue.ts`). */
export interface LeasedRow {
  seq: number;
  version: string | null;
  created_at: number;
  lease_expires_at: number | null;
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
