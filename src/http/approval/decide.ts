/**
 * One path for every approval decision made over HTTP (the API, resume links, the
 * approval page): applies it through `Engine.decideApproval` (which audits it) and
 * turns a refusal into an {@link ApprovalRefusedError} with its HTTP status.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { explainOutcome, type ApprovalDecisionResult } from "../../engine/approvals.js";
import type { Engine } from "../../engine/engine.js";
import { HttpError } from "../errors.js";

/** Status and code of each refused outcome. */
const REFUSALS: Record<Exclude<ApprovalDecisionResult["outcome"], "resolved">, [ContentfulStatusCode, string]> = {
  forbidden: [403, "APPROVAL_FORBIDDEN"],
  "already-decided": [409, "APPROVAL_ALREADY_DECIDED"],
  expired: [409, "APPROVAL_EXPIRED"],
  "not-waiting": [409, "APPROVAL_NOT_WAITING"],
  "no-pending-approval": [409, "NO_PENDING_APPROVAL"],
  "not-found": [404, "APPROVAL_NOT_FOUND"],
  invalid: [422, "APPROVAL_INVALID_VALUE"],
};

/** A decision that was not applied: already decided, timed out, cancelled, self-approval, bad form value… */
export class ApprovalRefusedError extends HttpError {
  constructor(
    readonly outcome: ApprovalDecisionResult["outcome"],
    runId: string,
    readonly problems: string[] = [],
  ) {
    const [status, code] = outcome === "resolved" ? ([500, "APPROVAL_RESOLVED"] as const) : REFUSALS[outcome];
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
  const result = await engine.decideApproval({ runId: d.runId, key: d.key, approve: d.approve, value: d.value, actor: d.actor, via: d.via });
  if (result.outcome !== "resolved") throw new ApprovalRefusedError(result.outcome, d.runId, result.problems);
  return result.key ?? d.key;
}
