import { describe, expect, it } from "vitest";
import { resumeUrls, signResumeToken, verifyResumeToken } from "./resume-token.js";

const secret = "s3cret-of-this-database";
const claims = { runId: "run-1", key: "waitForApproval", approver: null, exp: 2_000 };

describe("resume tokens", () => {
  it("verify for the run, wait and action they were made for", () => {
    const token = signResumeToken(secret, { ...claims, action: "resume" });
    expect(
      verifyResumeToken(secret, token, { runId: "run-1", key: "waitForApproval", action: "resume" }, 1_000),
    ).toMatchObject({ runId: "run-1", action: "resume" });
  });
  it("refuse forged, swapped, foreign and expired tokens", () => {
    const token = signResumeToken(secret, { ...claims, action: "resume" });
    const at = { runId: "run-1", key: "waitForApproval", action: "resume" as const };
    expect(() => verifyResumeToken("other-secret", token, at, 1_000)).toThrow(/bad signature/);
    expect(() => verifyResumeToken(secret, `${token}x`, at, 1_000)).toThrow(/bad signature/);
    expect(() => verifyResumeToken(secret, token, { ...at, action: "cancel" }, 1_000)).toThrow(
      /is for "resume", not "cancel"/,
    );
    expect(() => verifyResumeToken(secret, token, { ...at, runId: "run-2" }, 1_000)).toThrow(/another run or wait/);
    expect(() => verifyResumeToken(secret, token, { ...at, key: "waitForApproval#2" }, 1_000)).toThrow(
      /another run or wait/,
    );
    expect(() => verifyResumeToken(secret, token, at, 2_000)).toThrowError(
      expect.objectContaining({ code: "RESUME_TOKEN_EXPIRED" }),
    );
    expect(() => verifyResumeToken(secret, "", at, 1_000)).toThrow(/no token/);
    expect(() => verifyResumeToken(secret, "abc", at, 1_000)).toThrow(/malformed/);
    // A payload edited to another run, re-using the signature, fails.
    const [, sig] = token.split(".");
    const forged = `${Buffer.from(JSON.stringify(["run-2", "waitForApproval", "resume", null, 2000])).toString("base64url")}.${sig}`;
    expect(() => verifyResumeToken(secret, forged, { ...at, runId: "run-2" }, 1_000)).toThrow(/bad signature/);
  });
  it("builds three distinct URLs with unguessable tokens", () => {
    const urls = resumeUrls("http://127.0.0.1:7777/", secret, claims);
    expect(urls.approvalPage).toMatch(
      /^http:\/\/127\.0\.0\.1:7777\/approve\/run-1\/waitForApproval\?token=[\w.%-]{60,}$/,
    );
    expect(urls.resume).toMatch(/\/api\/runs\/run-1\/approvals\/waitForApproval\/resume\?token=/);
    expect(urls.cancel).toMatch(/\/cancel\?token=/);
    expect(
      new Set([urls.approvalPage.split("token=")[1], urls.resume.split("token=")[1], urls.cancel.split("token=")[1]])
        .size,
    ).toBe(3);
  });
});
