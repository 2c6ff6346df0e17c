import type { ClaimedRun, ClaimRequest } from "../types.js";
import { type RunRow, type StepRow, toRun, toStep } from "./rows.js";
import type { Statements } from "./statements.js";

const CLAIMABLE = "ready_at <= ? AND status IN ('pending', 'waiting') AND workflow IN (SELECT value FROM json_each(?))";
/** Runs holding a slot of the candidate's concurrency key: running, or started within its window. Takes `now`. */
const CONCURRENCY_IN_USE = `SELECT COUNT(*) FROM runs r2 WHERE r2.concurrency_key = runs.concurrency_key AND r2.seq != runs.seq
  AND (r2.status = 'running' OR (runs.concurrency_window_ms IS NOT NULL AND r2.started_at >= ? - runs.concurrency_window_ms))`;

/**
 * Leases up to `req.limit` runnable runs (highest priority, then oldest), honouring
 * concurrency limits, and loads their checkpoints. Runs inside the caller's
 * IMMEDIATE transaction.
 */
export function claimRuns(s: Statements, req: ClaimRequest, now: number): ClaimedRun[] {
  const workflows = JSON.stringify(req.workflows);
  // Candidates skip concurrency keys already at their limit; more than `limit` are read
  // because runs sharing a key may still block each other within this batch.
  // With `server` and no explicit queues: skip runs in other servers' local queues (`group@server`).
  const scope = req.queues
    ? " AND queue IN (SELECT value FROM json_each(?))"
    : req.server
      ? " AND (instr(queue, '@') = 0 OR substr(queue, instr(queue, '@')) = ?)"
      : "";
  const select = s.get(
    `SELECT seq, concurrency_key FROM runs WHERE ${CLAIMABLE}${scope}
       AND (concurrency_key IS NULL OR (${CONCURRENCY_IN_USE}) < concurrency_limit)
     ORDER BY priority DESC, ready_at, seq LIMIT ?`,
  );
  const inUse = s.get(`SELECT concurrency_limit AS lim, (${CONCURRENCY_IN_USE}) AS used FROM runs WHERE seq = ?`);
  const take = s.get(
    `UPDATE runs SET status = 'running', claims = claims + 1, lease_owner = ?, lease_expires_at = ?, ready_at = NULL,
       started_at = COALESCE(started_at, ?), updated_at = ?,
       version = COALESCE(version, (SELECT w.version FROM workflows w WHERE w.name = runs.workflow))
     WHERE seq = ? RETURNING *`,
  );
  const steps = s.get("SELECT * FROM steps WHERE run_id = ? ORDER BY position");
  const scoped = req.queues ? [JSON.stringify(req.queues)] : req.server ? [`@${req.server}`] : [];
  const candidates = select.all(now, workflows, ...scoped, now, req.limit * 2) as Array<{
    seq: number;
    concurrency_key: string | null;
  }>;
  const claimed: ClaimedRun[] = [];
  for (const c of candidates) {
    if (claimed.length >= req.limit) break;
    if (c.concurrency_key !== null) {
      const u = inUse.get(now, c.seq) as { lim: number; used: number };
      if (u.used >= u.lim) continue;
    }
    const row = take.get(req.workerId, now + req.leaseMs, now, now, c.seq) as RunRow;
    claimed.push({
      run: toRun(row),
      token: row.claims,
      // Steps are only ever written under a claim, so a first claim has none.
      steps: row.claims === 1 ? [] : (steps.all(row.id) as StepRow[]).map(toStep),
      claimedAt: now,
    });
  }
  return claimed;
}
