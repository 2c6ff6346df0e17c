/**
 * Resume links (`getResumeUrls`): each URL carries a token that binds it to one run,
 * one approval wait (its checkpoint key), one action and an optional approver, with an
 * expiry, signed with HMAC-SHA256 under a secret kept in the database. Pure: the
 * secret and the time are passed in.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { SluiceError } from "./errors.js";

/** How long resume links stay valid (the wait's own deadline still applies): 30 days. */
export const RESUME_LINK_TTL_MS = 30 * 86_400_000;

/** What a link does: show the page, approve, or reject. */
export type ResumeAction = "page" | "resume" | "cancel";

/** The claims a token carries. */
export interface ResumeClaims {
  runId: string;
  key: string;
  action: ResumeAction;
  /** Only this approver may use the link (from `getResumeUrls(approver)`), or null. */
  approver: string | null;
  /** Expiry, epoch ms. */
  exp: number;
}

/** A resume link's token is missing, forged, for another wait or action, or expired. */
export class InvalidResumeTokenError extends SluiceError {
  constructor(reason: string, code = "RESUME_TOKEN_INVALID") {
    super(code, `invalid resume link: ${reason}; ask for a new link (getResumeUrls) or use the run's page`);
  }
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url");

/** Signs `claims` into a URL-safe token `<payload>.<signature>`. */
export function signResumeToken(secret: string, claims: ResumeClaims): string {
  const payload = b64(JSON.stringify([claims.runId, claims.key, claims.action, claims.approver, claims.exp]));
  return `${payload}.${mac(secret, payload)}`;
}

/**
 * Checks a token against the run, wait and action it is used for.
 * @throws InvalidResumeTokenError (code RESUME_TOKEN_INVALID or RESUME_TOKEN_EXPIRED)
 */
export function verifyResumeToken(
  secret: string,
  token: string | null | undefined,
  expected: { runId: string; key: string; action: ResumeAction },
  now: number,
): ResumeClaims {
  if (!token) throw new InvalidResumeTokenError("no token");
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) throw new InvalidResumeTokenError("malformed token");
  const want = Buffer.from(mac(secret, payload));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw new InvalidResumeTokenError("bad signature");
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw new InvalidResumeTokenError("malformed token");
  }
  if (!Array.isArray(fields) || fields.length !== 5) throw new InvalidResumeTokenError("malformed token");
  const [runId, key, action, approver, exp] = fields as [string, string, ResumeAction, string | null, number];
  if (runId !== expected.runId || key !== expected.key)
    throw new InvalidResumeTokenError("the link belongs to another run or wait");
  if (action !== expected.action)
    throw new InvalidResumeTokenError(`the link is for "${action}", not "${expected.action}"`);
  if (typeof exp !== "number" || exp <= now)
    throw new InvalidResumeTokenError("the link has expired", "RESUME_TOKEN_EXPIRED");
  return { runId, key, action, approver, exp };
}

function mac(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

/** The three URLs of one approval wait. */
export function resumeUrls(
  baseUrl: string,
  secret: string,
  claims: Omit<ResumeClaims, "action">,
): { approvalPage: string; resume: string; cancel: string } {
  const base = baseUrl.replace(/\/+$/, "");
  const run = encodeURIComponent(claims.runId);
  const key = encodeURIComponent(claims.key);
  const token = (action: ResumeAction) => encodeURIComponent(signResumeToken(secret, { ...claims, action }));
  return {
    approvalPage: `${base}/approve/${run}/${key}?token=${token("page")}`,
    resume: `${base}/api/runs/${run}/approvals/${key}/resume?token=${token("resume")}`,
    cancel: `${base}/api/runs/${run}/approvals/${key}/cancel?token=${token("cancel")}`,
  };
}
