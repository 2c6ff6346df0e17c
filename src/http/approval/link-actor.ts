/**
 * Who decides through a signed link. The link itself is the credential; the actor is
 * the approver the link was made for (`getResumeUrls("alice")`), else the caller's
 * bearer token identity, else anonymous. An approval with `selfApproval: false` needs
 * a named actor (an anonymous decision could be the run's creator).
 */
import type { Engine } from "../../engine/engine.js";
import { pendingApprovals } from "../../engine/approvals.js";
import type { ResumeClaims } from "../../core/resume-token.js";
import type { Identity } from "../auth/identity.js";
import { HttpError } from "../errors.js";

/** A link used by someone other than the approver it names (403). */
export class LinkApproverMismatchError extends HttpError {
  constructor(linkFor: string, caller: string) {
    super(
      403,
      "LINK_APPROVER_MISMATCH",
      `this link is for ${linkFor}, but the request is signed in as ${caller}: ask for a link made for you`,
    );
  }
}

/** An anonymous decision on an approval that forbids self-approval (403). */
export class ApproverRequiredError extends HttpError {
  constructor() {
    super(
      403,
      "APPROVER_REQUIRED",
      'this approval does not allow self-approval, so it needs a named approver: use a link made for you (getResumeUrls("alice")) or send your bearer token',
    );
  }
}

/**
 * The actor of a link decision.
 * @throws LinkApproverMismatchError, ApproverRequiredError
 */
export async function linkActor(
  engine: Engine,
  identity: Identity | null,
  claims: ResumeClaims,
): Promise<string | null> {
  const tokenUser = identity?.tokenId ? identity.name : null;
  // Refused attempts are audited like the others (who, when, which decision).
  const refuse = async (actor: string | null, err: Error) => {
    const decision = claims.action === "cancel" ? "reject" : "approve";
    await engine.store.recordApprovalEvent({
      runId: claims.runId,
      stepKey: claims.key,
      actor,
      decision,
      outcome: "forbidden",
      via: "link",
    });
    throw err;
  };
  if (claims.approver !== null) {
    if (tokenUser !== null && tokenUser !== claims.approver)
      return refuse(tokenUser, new LinkApproverMismatchError(claims.approver, tokenUser));
    return claims.approver;
  }
  if (tokenUser === null) {
    const pending = pendingApprovals(await engine.store.getSteps(claims.runId)).find((p) => p.key === claims.key);
    if (pending && !pending.selfApproval) return refuse(null, new ApproverRequiredError());
  }
  return tokenUser;
}
