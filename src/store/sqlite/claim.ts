import type { ClaimedRun, ClaimRequest } from "../types.js";
import { type RunRow, type StepRow, toRun, toStep } from "./rows.js";
import type { Statements } from "./statements.js";

/** The claim-order index (migration 9) holds exactly the runs a claim may take once they are due. */
const QUEUED = "runs INDEXED BY runs_claim_order WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting')";
/** Takes the priority, `now` and the workflow names. */
const CLAIMABLE = `${QUEUED} AND priority = ? AND ready_at <= ? AND workflow IN (SELECT value FROM json_each(?))`;
/** Runs holding a slot of the candidate's concurrency key: running, or started within its window. Takes `now`. */
const CONCURRENCY_IN_USE = `SELECT COUNT(*) FROM runs r2 WHERE r2.concurrency_key = runs.concurrency_key AND r2.seq != runs.seq
  AND (r2.status = 'running' OR (runs.concurrency_window_ms IS NOT NULL AND r2.started_at >= ? - runs.concurrency_window_ms))`;

/**
 * Leases up to `req.limit` runnable runs (highest priority, then oldest), honouring
 * concurrency limits, and loads their checkpoints. Runs inside the caller's
 * IMMEDIATE transaction.
 *
 * Candidates are read one priority at a time, highest first (the priorities present
 * are found by skipping down the claim-order index), each a range of due runs in age
 * order: a claim reads about as many rows as it takes, however many runs are queued
 * or parked with a later timer.
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
  // With a worker's version: only runs not yet pinned or pinned to it.
  const pinned = req.version ? " AND (version IS NULL OR version = ?)" : "";
  const select = s.get(
    `SELECT seq, concurrency_key, ready_at FROM ${CLAIMABLE}${scope}${pinned}
       AND (concurrency_key IS NULL OR (${CONCURRENCY_IN_USE}) < concurrency_limit)
     ORDER BY ready_at, seq LIMIT ?`,
  );
  const top = s.get(`SELECT priority FROM ${QUEUED} ORDER BY priority DESC LIMIT 1`).pluck();
  const below = s.get(`SELECT priority FROM ${QUEUED} AND priority < ? ORDER BY priority DESC LIMIT 1`).pluck();
  const inUse = s.get(`SELECT concurrency_limit AS lim, (${CONCURRENCY_IN_USE}) AS used FROM runs WHERE seq = ?`);
  const TAKE = `UPDATE runs SET status = 'running', claims = claims + 1, lease_owner = ?, lease_expires_at = ?, ready_at = NULL,
       started_at = COALESCE(started_at, ?), updated_at = ?,
       version = COALESCE(version, ?, (SELECT w.version FROM workflows w WHERE w.name = runs.workflow))`;
  const take = s.get(`${TAKE} WHERE seq = ? RETURNING *`);
  const takeMany = s.get(`${TAKE} WHERE seq IN (SELECT value FROM json_each(?)) RETURNING *`);
  const steps = s.get("SELECT * FROM steps WHERE run_id = ? ORDER BY position");
  const scoped = [
    ...(req.queues ? [JSON.stringify(req.queues)] : req.server ? [`@${req.server}`] : []),
    ...(req.version ? [req.version] : []),
  ];
  const wanted = req.limit * 2;
  const candidates: Array<{ seq: number; concurrency_key: string | null; ready_at: number }> = [];
  for (let p = top.get() as number | undefined; p !== undefined && candidates.length < wanted;) {
    candidates.push(
      ...(select.all(p, now, workflows, ...scoped, now, wanted - candidates.length) as typeof candidates),
    );
    p = below.get(p) as number | undefined;
  }
  // Runs with a concurrency key are taken one by one (each counts against the next); the others in one statement.
  const lease = [req.workerId, now + req.leaseMs, now, now, req.version ?? null] as const;
  const rows: RunRow[] = [];
  const keyless: number[] = [];
  for (const c of candidates) {
    if (rows.length + keyless.length >= req.limit) break;
    if (c.concurrency_key === null) {
      keyless.push(c.seq);
      continue;
    }
    const u = inUse.get(now, c.seq) as { lim: number; used: number };
    if (u.used < u.lim) rows.push(take.get(...lease, c.seq) as RunRow);
  }
  if (keyless.length) rows.push(...(takeMany.all(...lease, JSON.stringify(keyless)) as RunRow[]));
  const order = new Map(candidates.map((c, i) => [c.seq, i]));
  rows.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
  // The claim clears ready_at: the due time comes from the candidate row read before it.
  return rows.map((row) => ({
    run: toRun(row),
    token: row.claims,
    // Steps are only ever written under a claim, so a first claim has none.
    steps: row.claims === 1 ? [] : (steps.all(row.id) as StepRow[]).map(toStep),
    claimedAt: now,
    dueAt: candidates[order.get(row.seq)!]!.ready_at,
  }));
}
