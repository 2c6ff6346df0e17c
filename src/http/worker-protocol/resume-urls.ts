/**
 * Resume links for external workers (`POST /api/worker/runs/{id}/resume-urls`): the same
 * signed approve/reject/page URLs the built-in engine's `getResumeUrls()` makes, bound to
 * one run, one approval wait (its key), an optional approver and an expiry. The claim's
 * fencing token is checked by a fenced write with no steps (nothing is written), so a
 * worker whose lease is gone gets 409 `LEASE_LOST` like for any other call of its claim.
 */
import { RESUME_LINK_TTL_MS, resumeUrls } from "../../core/resume-token.js";
import type { Engine } from "../../engine/engine.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { APPROVAL_KEY } from "../../worker/wac-host.js";
import { bodyObject, onlyFields, optString } from "../input.js";
import { LeaseLostHttpError } from "./claim-writes.js";
import { parseLease } from "./messages.js";

/** The keys approvals are checkpointed under: `waitForApproval`, then `waitForApproval#2`, … */
const APPROVAL_KEY_RE = new RegExp(`^${APPROVAL_KEY}(#[1-9][0-9]{0,8})?$`);

const EXAMPLE = '{"token": 3, "key": "waitForApproval", "approver": "alice@example.com"}';

/** The three links of one approval wait. */
export interface ResumeUrlsAnswer {
  approvalPage: string;
  resume: string;
  cancel: string;
}

/**
 * Signs the links of the approval wait `key` of run `runId` for the claim named in `raw`
 * (valid for 30 days from `now()`, the clock links are checked against).
 * @throws InvalidInputError (400) for a bad body or a key that is not an approval key,
 *   LeaseLostHttpError (409) when the token is not the run's current claim
 */
export async function claimResumeUrls(
  engine: Engine,
  runId: string,
  raw: unknown,
  now: () => number,
): Promise<ResumeUrlsAnswer> {
  const b = bodyObject(raw, EXAMPLE);
  onlyFields(b, ["token", "key", "approver"]);
  const lease = parseLease(runId, b);
  const key = optString(b, "key") ?? APPROVAL_KEY;
  if (!APPROVAL_KEY_RE.test(key))
    throw new InvalidInputError(
      `"key" must be the approval wait's key, "${APPROVAL_KEY}" or "${APPROVAL_KEY}#n" for the n-th approval of the run, got ${JSON.stringify(key)}`,
      { code: "INVALID_BODY" },
    );
  const approver = optString(b, "approver") ?? null;
  // A fenced write of nothing: refused when the token is stale, and shares the group commit.
  const r = await engine.committer.submit({ verb: "saveSteps", lease, steps: [] });
  if (!r.ok) throw new LeaseLostHttpError(runId);
  const [secret, baseUrl] = await Promise.all([engine.resumeSecret(), engine.publicUrl()]);
  return resumeUrls(baseUrl, secret, { runId, key, approver, exp: now() + RESUME_LINK_TTL_MS });
}
