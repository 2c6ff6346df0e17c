/**
 * `Store.reclaimExpired` on SQLite: ends up to `limit` leases that expired or that their worker
 * released (a release mark in `lease_ms`), inside the caller's write transaction. The error each
 * run gets is the one rule of `store/run-errors.ts`; the run goes on to its next attempt after its
 * backoff, or ends `failed` on its last.
 */
import type { SerializedError } from "../../core/serde.js";
import { reclaimError } from "../run-errors.js";
import type { RetryDelay } from "../types.js";
import { reanchorLeases } from "./clock-reanchor.js";
import type { Statements } from "./statements.js";
import type { SqliteWrites } from "./writes.js";

interface ExpiredRow {
  id: string;
  attempt: number;
  max_attempts: number;
  lease_ms: number | null;
  backoff_base: number;
  backoff_max: number;
}

/** See the module comment. @returns the ids of the runs reclaimed */
export function reclaimExpired(
  s: Statements,
  w: SqliteWrites,
  now: number,
  limit: number,
  retryDelayMs: RetryDelay,
): string[] {
  // Leases a clock ahead wrote: noted, and ended once not renewed for their length (store/clock-reanchor.ts).
  reanchorLeases(s, now);
  const rows = s
    .get(
      `SELECT id, attempt, max_attempts, lease_ms, backoff_base, backoff_max FROM runs
       WHERE status = 'running' AND lease_expires_at < ? ORDER BY lease_expires_at LIMIT ?`,
    )
    .all(now, limit) as ExpiredRow[];
  for (const row of rows) {
    const error: SerializedError = reclaimError({ attempt: row.attempt, maxAttempts: row.max_attempts }, row.lease_ms);
    if (row.attempt < row.max_attempts) {
      s.get(
        `UPDATE runs SET status = 'pending', attempt = attempt + 1, ready_at = ?, error = ?, lease_owner = NULL,
           lease_expires_at = NULL, updated_at = ? WHERE id = ?`,
      ).run(
        now + retryDelayMs(row.attempt, { base: row.backoff_base, max: row.backoff_max }),
        JSON.stringify(error),
        now,
        row.id,
      );
    } else w.finish(row.id, { status: "failed", error }, now);
  }
  return rows.map((r) => r.id);
}
