/**
 * Where one approval wait stands, for the approval page: pending (with its form),
 * approved or rejected (by whom), timed out, closed (the run was cancelled or ended),
 * or missing.
 */
import { normaliseForm, type FormSchema } from "../../core/approval-form.js";
import { decodeValue } from "../../core/serde.js";
import { pendingApprovals, type PendingApproval } from "../../engine/approvals.js";
import type { ApprovalEvent, RunRecord, StepRecord, Store } from "../../store/types.js";

/** The state of an approval wait. */
type ApprovalState = "pending" | "approved" | "rejected" | "expired" | "closed" | "missing";

/** Everything the page shows about one wait. */
export interface ApprovalView {
  state: ApprovalState;
  run: RunRecord | null;
  steps: StepRecord[];
  key: string;
  pending: PendingApproval | null;
  form: FormSchema | null;
  /** Who decided and with what value (approved / rejected). */
  decision: { approver: string | null; value: unknown; at: number | null } | null;
  /** Deadline of the wait (epoch ms), when known. */
  deadline: number | null;
}

/** Loads the {@link ApprovalView} of `runId`'s wait `key` at time `now`. */
export async function loadApproval(store: Store, runId: string, key: string, now: number): Promise<ApprovalView> {
  const run = await store.getRun(runId);
  const base = { run, key, steps: [] as StepRecord[], pending: null, form: null, decision: null, deadline: null };
  if (!run) return { ...base, state: "missing" };
  const steps = await store.getSteps(runId);
  const step = steps.find((s) => s.key === key && s.kind === "approval");
  if (!step) return { ...base, steps, state: "missing" };
  const pending = pendingApprovals(steps).find((p) => p.key === key) ?? null;
  const view = { ...base, steps, pending, deadline: step.wakeAt, form: normaliseForm(pending?.form ?? null) };
  if (step.status === "pending") {
    if (step.wakeAt !== null && step.wakeAt <= now) return { ...view, state: "expired" };
    return { ...view, state: run.status === "waiting" ? "pending" : "closed" };
  }
  const result =
    decodeValue<{ approved?: boolean; approver?: string | null; value?: unknown } | undefined>(step.value) ?? {};
  const resolved = lastResolved(await store.listApprovalEvents(runId), key);
  if (!resolved && !result.approved) return { ...view, state: "expired" };
  return {
    ...view,
    state: result.approved ? "approved" : "rejected",
    decision: {
      approver: result.approver ?? resolved?.actor ?? null,
      value: result.value ?? null,
      at: resolved?.ts ?? step.finishedAt,
    },
  };
}

function lastResolved(events: ApprovalEvent[], key: string): ApprovalEvent | undefined {
  return events.filter((e) => e.stepKey === key && e.outcome === "resolved").pop();
}
