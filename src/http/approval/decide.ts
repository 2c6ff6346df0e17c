/**
 * One path for every approval decision made over HTTP (the API, resume links, the
 * approval page): applies it through `Engine.decideApproval` (which audits it) and
 * turns a refusal into an {@link ApprovalRefusedError} with its HTTP status.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { APPROVAL_REFUSAL_CODES, explainOutcome, type ApprovalDecisionResult } from "../../engine/approvals.js";
import type { Engine } from "../../engine/engine.js";
import { HttpError } from "../errors.js";

/** HTTP status of each refused outcome (codes: {@link APPROVAL_REFUSAL_CODES}). */
const STATUSES: Record<Exclude<ApprovalDecisionResult["outcome"], "resolved">, ContentfulStatusCode> = {
  forbidden: 403,
  "already-decided": 409,
  expired: 409,
  "not-waiting": 409,
  "no-pending-approval": 409,
  "not-found": 404,
  "run-not-found": 404,
  invalid: 422,
};

/** A decision that was not applied: already decided, timed out, cancelled, self-approval, bad form value… */
export class ApprovalRefusedError extends HttpError {
  constructor(
    readonly outcome: ApprovalDecisionResult["outcome"],
    runId: string,
    readonly problems: string[] = [],
  ) {
    const [status, code] =
      outcome === "resolved"
        ? ([500, "APPROVAL_RESOLVED"] as const)
        : [STATUSES[outcome], APPROVAL_REFUSAL_CODES[outcome]];
    super(status, code, explainOutcome(outcome, runId, problems));
  }
}

/** A decision request. */
export interface HttpDecision {
  runId: string;
  key: string;
  approve: boolean;
  value?: unknown;
  actor: string | null;
  via: "api" | "link" | "page";
}

/**
 * Applies a decision.
 * @returns the resolved key
 * @throws ApprovalRefusedError when it was refused (the attempt is audited all the same)
 */
export async function decide(engine: Engine, d: HttpDecision): Promise<string> {
  const result = await engine.decideApproval({
    runId: d.runId,
    key: d.key,
    approve: d.approve,
    value: d.value,
    actor: d.actor,
    via: d.via,
  });
  if (result.outcome !== "resolved") throw new ApprovalRefusedError(result.outcome, d.runId, result.problems);
  return result.key ?? d.key;
}
