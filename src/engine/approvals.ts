/**
 * Deciding a pending `waitForApproval` (CLI `sluice approve`, the API, resume links):
 * finds the wait, applies `selfApproval` and the form, and resolves it once. Every
 * attempt is audited by the store.
 */
import { normaliseForm, validateFormValue } from "../core/approval-form.js";
import { RunNotFoundError } from "../sdk/errors.js";
import type { ResolveWaitOutcome, Store, StepRecord } from "../store/types.js";

/** A decision on an approval. */
export interface ApprovalDecision {
  runId: string;
  /** The approval's checkpoint key; default the run's pending approval. */
  key?: string;
  approve: boolean;
  /** Form data (approvals only). */
  value?: unknown;
  /** Who decides (user name or token identity), null if anonymous. */
  actor: string | null;
  /** Where the decision came from: `cli`, `api`, `link`. */
  via: string;
}

/** What became of a decision. `invalid` comes with `problems`. */
export interface ApprovalDecisionResult {
  outcome: ResolveWaitOutcome | "invalid" | "no-pending-approval" | "run-not-found";
  key: string | null;
  problems?: string[];
}

/** What a pending approval step asked for. */
export interface PendingApproval {
  key: string;
  form: unknown;
  selfApproval: boolean;
  timeout: number;
  deadline: number | null;
}

/** The pending approvals of a run, from its steps. */
export function pendingApprovals(steps: StepRecord[]): PendingApproval[] {
  return steps
    .filter((s) => s.kind === "approval" && s.status === "pending")
    .map((s) => {
      const req = (s.value ? JSON.parse(s.value) : {}) as { form?: unknown; selfApproval?: boolean; timeout?: number };
      return {
        key: s.key,
        form: req.form ?? null,
        selfApproval: req.selfApproval ?? true,
        timeout: req.timeout ?? 1800,
        deadline: s.wakeAt,
      };
    });
}

/** Applies a decision. */
export async function decideApproval(store: Store, d: ApprovalDecision): Promise<ApprovalDecisionResult> {
  const audit = { actor: d.actor, decision: d.approve ? "approve" : "reject", via: d.via };
  const steps = await store.getSteps(d.runId);
  if (steps.length === 0 && !(await store.getRun(d.runId))) return { outcome: "run-not-found", key: d.key ?? null };
  const pending = pendingApprovals(steps);
  const target = d.key ? pending.find((p) => p.key === d.key) : pending[pending.length - 1];
  // Nothing pending: the run's latest approval (if any) is the one the caller meant.
  const key = target?.key ?? d.key ?? latestApprovalKey(steps);
  if (!target) {
    if (key === null) return { outcome: "no-pending-approval", key: null };
    // Let the store say why (timed out, already decided, not found) and record the attempt.
    return { outcome: await store.resolveWait({ runId: d.runId, key, kind: "approval", value: null, audit }), key };
  }
  // A wait that can no longer be decided (run cancelled or finished, deadline passed) is refused
  // as such below, whatever the form value: the caller learns "too late", not "fix the form".
  const open =
    (await store.getRun(d.runId))?.status === "waiting" &&
    (target.deadline === null || target.deadline > (await store.now()));
  if (d.approve && open) {
    const problems = validateFormValue(normaliseForm(target.form), d.value);
    if (problems.length) {
      await store.recordApprovalEvent({
        runId: d.runId,
        stepKey: target.key,
        actor: d.actor,
        decision: audit.decision,
        outcome: "invalid",
        via: d.via,
      });
      return { outcome: "invalid", key, problems };
    }
  }
  const decision = { value: d.approve ? (d.value ?? null) : null, approver: d.actor, approved: d.approve };
  const outcome = await store.resolveWait({
    runId: d.runId,
    key: target.key,
    kind: "approval",
    value: JSON.stringify(decision),
    audit,
    creatorMayDecide: target.selfApproval,
  });
  return { outcome, key: target.key };
}

function latestApprovalKey(steps: StepRecord[]): string | null {
  const approvals = steps.filter((s) => s.kind === "approval").sort((a, b) => a.position - b.position);
  return approvals[approvals.length - 1]?.key ?? null;
}

/** The stable error code of each outcome that did not resolve the approval (CLI and HTTP alike). */
export const APPROVAL_REFUSAL_CODES: Record<Exclude<ApprovalDecisionResult["outcome"], "resolved">, string> = {
  forbidden: "APPROVAL_FORBIDDEN",
  "already-decided": "APPROVAL_ALREADY_DECIDED",
  expired: "APPROVAL_EXPIRED",
  "not-waiting": "APPROVAL_NOT_WAITING",
  "no-pending-approval": "NO_PENDING_APPROVAL",
  "not-found": "APPROVAL_NOT_FOUND",
  "run-not-found": "RUN_NOT_FOUND",
  invalid: "APPROVAL_INVALID_VALUE",
};

/** A sentence for people about an outcome that did not resolve the approval. */
export function explainOutcome(
  outcome: ApprovalDecisionResult["outcome"],
  runId: string,
  problems: string[] = [],
): string {
  switch (outcome) {
    case "resolved":
      return `decided: run ${runId} resumes`;
    case "forbidden":
      return `the user who started run ${runId} cannot decide this approval (selfApproval: false): ask someone else`;
    case "already-decided":
      return `this approval of run ${runId} was already decided`;
    case "expired":
      return `this approval of run ${runId} timed out: it can no longer be decided`;
    case "not-waiting":
      return `run ${runId} is not waiting for this approval (cancelled or finished)`;
    case "no-pending-approval":
      return `run ${runId} has no pending approval`;
    case "invalid":
      return `the form value is not valid: ${problems.join("; ")}`;
    case "run-not-found":
      return new RunNotFoundError(runId).message;
    default:
      return `no approval of run ${runId} with that key`;
  }
}
