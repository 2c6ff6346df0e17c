import type { ApprovalEvent, ResolveWaitOutcome, ResolveWaitRequest, RunStatus } from "../types.js";
import { waitOutcome } from "../wait-outcome.js";
import type { Statements } from "./statements.js";

/** Resolves one pending wait or approval (see `Store.resolveWait`) and audits the attempt. In the caller's transaction. */
export function resolveWait(s: Statements, req: ResolveWaitRequest, now: number): ResolveWaitOutcome {
  const outcome = decide(s, req, now);
  if (req.audit) recordApprovalEvent(s, { runId: req.runId, stepKey: req.key, ...req.audit, outcome }, now);
  return outcome;
}

function decide(s: Statements, req: ResolveWaitRequest, now: number): ResolveWaitOutcome {
  const run = s.get("SELECT status, created_by FROM runs WHERE id = ?").get(req.runId) as
    { status: RunStatus; created_by: string | null } | undefined;
  const step = s
    .get("SELECT kind, status, wake_at, finished_at FROM steps WHERE run_id = ? AND key = ?")
    .get(req.runId, req.key) as
    { kind: string; status: string; wake_at: number | null; finished_at: number | null } | undefined;
  const outcome = waitOutcome(
    {
      run: run ? { status: run.status, createdBy: run.created_by } : null,
      step: step ? { kind: step.kind, status: step.status, wakeAt: step.wake_at, finishedAt: step.finished_at } : null,
    },
    req,
    now,
  );
  if (outcome !== "resolved") return outcome;
  s.get("UPDATE steps SET status = 'done', value = ?, finished_at = ? WHERE run_id = ? AND key = ?").run(
    req.value,
    now,
    req.runId,
    req.key,
  );
  s.get("UPDATE runs SET status = 'pending', ready_at = ?, updated_at = ? WHERE id = ?").run(now, now, req.runId);
  return "resolved";
}

/** Appends one approval attempt to the audit log. */
export function recordApprovalEvent(s: Statements, e: Omit<ApprovalEvent, "ts">, now: number): void {
  s.get(
    "INSERT INTO approval_events (run_id, step_key, actor, decision, outcome, via, ts) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(e.runId, e.stepKey, e.actor, e.decision, e.outcome, e.via, now);
}

/** A run's approval attempts, oldest first. */
export function listApprovalEvents(s: Statements, runId: string): ApprovalEvent[] {
  const rows = s.get("SELECT * FROM approval_events WHERE run_id = ? ORDER BY seq").all(runId) as Array<{
    run_id: string;
    step_key: string;
    actor: string | null;
    decision: string;
    outcome: string;
    via: string | null;
    ts: number;
  }>;
  return rows.map((r) => ({
    runId: r.run_id,
    stepKey: r.step_key,
    actor: r.actor,
    decision: r.decision,
    outcome: r.outcome as ApprovalEvent["outcome"],
    via: r.via,
    ts: r.ts,
  }));
}
