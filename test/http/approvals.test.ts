import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTerminal } from "../../src/store/types.js";
import { startHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const json = async (r: Response) => (await r.json()) as any;
type Urls = { approvalPage: string; resume: string; cancel: string };

/** Starts f/gate (selfApproval: false, form) as `alice` and returns its run id and links. */
async function gate(createdBy = "alice") {
  const run = await h.start("f/gate", { env: "prod" }, { createdBy, until: (r) => r.status === "waiting" });
  const urls = JSON.parse((await h.store.getSteps(run.id)).find((s) => s.key === "urls")!.value!) as Urls;
  return { id: run.id, urls };
}
async function openGate() {
  const run = await h.start("f/open_gate", {}, { until: (r) => r.status === "waiting" });
  const steps = await h.store.getSteps(run.id);
  const urls = JSON.parse(steps.find((s) => s.key === "urls")!.value!) as Urls;
  const named = JSON.parse(steps.find((s) => s.key === "named")!.value!) as Urls;
  return { id: run.id, urls, named };
}
/** Path and query of a link (the app is called in-process). */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});
const result = async (id: string) => JSON.parse((await h.waitFor(id, (r) => isTerminal(r.status))).result!);

describe("approval page", () => {
  it("GET shows the run's context and the form from the JSON schema (fields, enums, required, order)", async () => {
    const { id, urls } = await gate();
    const res = await h.call("GET", local(urls.approvalPage));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    const html = await res.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("Approval requested");
    expect(html).toContain(id);
    expect(html).toContain("f/gate");
    expect(html).toContain("alice");
    expect(html).toContain("&quot;env&quot;: &quot;prod&quot;");
    // order: environment, then reason (required), then the rest
    const order = ["f.environment", "f.reason", "f.priority", "f.notify"].map((n) => html.indexOf(`name="${n}"`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toMatch(/<option value="0">staging<\/option><option value="1">production<\/option>/);
    expect(html).toMatch(/name="f.reason" value="" required=""/);
    expect(html).toContain('type="checkbox" id="field-notify"');
    expect(html).toContain("Why?");
    expect(html).toContain("cannot approve it");
    // GET does not act.
    expect((await h.store.getRun(id))!.status).toBe("waiting");
    expect(await h.store.listApprovalEvents(id)).toEqual([]);
  });

  it("escapes everything it shows", async () => {
    const run = await h.start(
      "f/gate",
      { env: "<script>alert(1)</script>" },
      { createdBy: '<img src=x onerror="alert(2)">', until: (r) => r.status === "waiting" },
    );
    const urls = JSON.parse((await h.store.getSteps(run.id)).find((s) => s.key === "urls")!.value!) as Urls;
    const html = await (await h.call("GET", local(urls.approvalPage))).text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  it("refuses forged, mismatched and expired links (403 / 410) without acting", async () => {
    const { id, urls } = await gate();
    const forged = local(urls.approvalPage).replace(/token=[^&]+/, "token=abc.def");
    expect((await h.call("GET", forged)).status).toBe(403);
    expect((await h.call("POST", forged, form({ decision: "approve", "f.reason": "x" }))).status).toBe(403);
    const resumeTokenOnPage = `/approve/${encodeURIComponent(id)}/waitForApproval?${new URL(urls.resume).search.slice(1)}`;
    const wrongAction = await h.call("GET", resumeTokenOnPage);
    expect(wrongAction.status).toBe(403);
    expect(await wrongAction.text()).toMatch(/is for &quot;resume&quot;, not &quot;page&quot;/);
    h.clock.advance(31 * 86_400_000);
    try {
      expect((await h.call("GET", local(urls.approvalPage))).status).toBe(410);
    } finally {
      h.clock.advance(-31 * 86_400_000);
    }
    expect((await h.store.getRun(id))!.status).toBe("waiting");
  });

  it("POST approves with the typed form value; a second POST is 409; every attempt is audited", async () => {
    const { id, urls } = await openGate();
    const named = await h.call("POST", local(urls.approvalPage), form({ decision: "approve" }));
    expect(named.status).toBe(200);
    expect(await named.text()).toContain("Approved: the run resumes.");
    const again = await h.call("POST", local(urls.approvalPage), form({ decision: "reject" }));
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already decided");
    const res = await result(id);
    expect(res.approval).toEqual({ value: {}, approver: null, approved: true });
    const events = await h.store.listApprovalEvents(id);
    expect(events.map((e) => [e.actor, e.decision, e.outcome, e.via])).toEqual([
      [null, "approve", "resolved", "page"],
      [null, "reject", "already-decided", "page"],
    ]);
    // The page now shows the decision.
    const html = await (await h.call("GET", local(urls.approvalPage))).text();
    expect(html).toContain("<h1>Approved</h1>");
    expect(html).toContain("anonymous (link)");
  });

  it("a link made for an approver decides as that approver; form values are typed; invalid forms are 422", async () => {
    const run = await h.start("f/gate", { env: "prod" }, { createdBy: "alice", until: (r) => r.status === "waiting" });
    // f/gate's links are anonymous and it forbids self-approval: an anonymous decision is refused.
    const urls = JSON.parse((await h.store.getSteps(run.id)).find((s) => s.key === "urls")!.value!) as Urls;
    const anon = await h.call("POST", local(urls.approvalPage), form({ decision: "approve", "f.reason": "ok" }));
    expect(anon.status).toBe(403);
    expect(await anon.text()).toContain("needs a named approver");
    // With bob's bearer token the same link works, and the values are typed.
    const bad = await h.call("POST", local(urls.approvalPage), {
      ...form({ decision: "approve", "f.environment": "1" }),
      token: h.tokens.operate,
    });
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("&quot;reason&quot; is required");
    expect(badHtml).toMatch(/<option value="1" selected="">production<\/option>/);
    const notNumber = await h.call("POST", local(urls.approvalPage), {
      ...form({ decision: "approve", "f.reason": "x", "f.priority": "high" }),
      token: h.tokens.operate,
    });
    expect(notNumber.status).toBe(422);
    const ok = await h.call("POST", local(urls.approvalPage), {
      ...form({ decision: "approve", "f.reason": "LGTM", "f.environment": "1", "f.priority": "2", "f.notify": "true" }),
      token: h.tokens.operate,
    });
    expect(ok.status).toBe(200);
    expect((await result(run.id)).approval).toEqual({
      value: { reason: "LGTM", environment: "production", priority: 2, notify: true },
      approver: "olivia",
      approved: true,
    });
  });
});

describe("resume and cancel links work with a plain POST", () => {
  it("resume approves (JSON body = form value) as the link's approver; cancel rejects", async () => {
    const a = await openGate();
    const wrongUser = await h.call("POST", local(a.named.resume), { token: h.tokens.operate });
    expect(wrongUser.status).toBe(403);
    expect((await json(wrongUser)).error.code).toBe("LINK_APPROVER_MISMATCH");
    const r = await h.call("POST", local(a.named.resume), { body: "", headers: {} });
    expect(r.status).toBe(200);
    expect(await json(r)).toEqual({
      runId: a.id,
      key: "waitForApproval",
      outcome: "resolved",
      approved: true,
      actor: "bob",
    });
    expect((await result(a.id)).approval).toEqual({ value: null, approver: "bob", approved: true });

    const b = await openGate();
    const c = await h.call("POST", local(b.urls.cancel));
    expect(c.status).toBe(200);
    expect((await result(b.id)).approval).toMatchObject({ approved: false });
    // The resume link of a decided wait is a 409.
    const late = await h.call("POST", local(b.urls.resume));
    expect(late.status).toBe(409);
    expect((await json(late)).error).toMatchObject({ code: "APPROVAL_ALREADY_DECIDED", outcome: "already-decided" });
  });

  it("a JSON body sent with curl's default form content type is the form value", async () => {
    const { id, urls } = await gate();
    const res = await h.call("POST", local(urls.resume), {
      body: JSON.stringify({ reason: "curl" }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      token: h.tokens.admin,
    });
    expect(res.status).toBe(200);
    expect((await result(id)).approval).toEqual({ value: { reason: "curl" }, approver: "ada", approved: true });
  });

  it("links of one action or wait do not work for another", async () => {
    const { id, urls } = await gate();
    const swapped = local(urls.resume).replace("/resume?", "/cancel?");
    expect((await h.call("POST", swapped, { token: h.tokens.operate })).status).toBe(403);
    expect((await h.call("POST", local(urls.resume).replace(/token=.*/, ""), { token: h.tokens.operate })).status).toBe(
      403,
    );
    expect((await h.store.getRun(id))!.status).toBe("waiting");
    await h.engine.cancel(id);
  });
});

describe("approval races", () => {
  it("double POST: exactly one decision wins, the other gets 409", async () => {
    const { id } = await openGate();
    const [a, b] = await Promise.all([
      h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, { token: h.tokens.operate, body: { approve: true } }),
      h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, { token: h.tokens.admin, body: { approve: false } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? "olivia" : "ada";
    expect((await result(id)).approval.approver).toBe(winner);
    expect((await h.store.listApprovalEvents(id)).map((e) => e.outcome).sort()).toEqual([
      "already-decided",
      "resolved",
    ]);
  });

  it("approve vs cancel: after the run is cancelled the decision is 409 and the run stays cancelled", async () => {
    const { id, urls } = await gate();
    const [decision, cancel] = await Promise.all([
      h.call("POST", local(urls.resume), { token: h.tokens.operate, body: { reason: "race" } }),
      h.call("POST", `/api/runs/${id}/cancel`, { token: h.tokens.admin }),
    ]);
    const run = await h.waitFor(id, (r) => isTerminal(r.status));
    if (cancel.status === 200 && decision.status === 409) {
      expect(run.status).toBe("cancelled");
      expect((await json(decision)).error.code).toBe("APPROVAL_NOT_WAITING");
    } else {
      // The approval won; cancelling a resumed run still cancels it unless it already finished.
      expect(decision.status).toBe(200);
    }
    // After the cancel, every decision is a 409.
    for (const path of [local(urls.resume), local(urls.cancel)]) {
      const late = await h.call("POST", path, { token: h.tokens.operate });
      expect(late.status).toBe(409);
    }
    const page = await h.call("POST", local(urls.approvalPage), {
      ...form({ decision: "approve", "f.reason": "x" }),
      token: h.tokens.operate,
    });
    expect(page.status).toBe(409);
  });

  it("after the timeout: 409, and the page says it timed out", async () => {
    const { id, urls } = await gate();
    h.clock.advance(2 * 3_600_000);
    const res = await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, {
      token: h.tokens.operate,
      body: { approve: true, value: { reason: "late" } },
    });
    expect(res.status).toBe(409);
    expect((await json(res)).error).toMatchObject({ code: "APPROVAL_EXPIRED", outcome: "expired" });
    const link = await h.call("POST", local(urls.resume), { token: h.tokens.operate });
    expect(link.status).toBe(409);
    const page = await h.call("GET", local(urls.approvalPage));
    expect(await page.text()).toContain("This approval timed out");
    expect((await result(id)).approval).toEqual({ value: null, approver: null, approved: false });
    // Once the run recorded the timeout and finished, a decision is still "expired", not "already decided".
    const after = await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, {
      token: h.tokens.operate,
      body: { approve: true, value: { reason: "late" } },
    });
    expect(after.status).toBe(409);
    expect((await json(after)).error).toMatchObject({
      code: "APPROVAL_EXPIRED",
      message: expect.stringMatching(/timed out/),
    });
    expect((await json(await h.call("POST", local(urls.resume), { token: h.tokens.operate }))).error.code).toBe(
      "APPROVAL_EXPIRED",
    );
  });

  it("GET (or PUT, DELETE) on a resume or cancel link is 405 with Allow: POST, and acts on nothing", async () => {
    const { id, urls } = await openGate();
    for (const link of [urls.resume, urls.cancel]) {
      for (const method of ["GET", "DELETE"]) {
        const res = await h.call(method, local(link));
        expect(res.status, `${method} ${link}`).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
        expect((await json(res)).error).toMatchObject({
          code: "METHOD_NOT_ALLOWED",
          message: expect.stringMatching(/acts only on POST: curl -X POST/),
        });
      }
    }
    expect((await h.store.getRun(id))!.status).toBe("waiting");
    expect(await h.store.listApprovalEvents(id)).toEqual([]);
  });

  it("self-approval: the run's creator gets 403 (audited), someone else may approve", async () => {
    const { id, urls } = await gate("olivia");
    const self = await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, {
      token: h.tokens.operate,
      body: { approve: true, value: { reason: "mine" } },
    });
    expect(self.status).toBe(403);
    expect((await json(self)).error).toMatchObject({ code: "APPROVAL_FORBIDDEN", outcome: "forbidden" });
    const selfLink = await h.call("POST", local(urls.resume), { token: h.tokens.operate, body: { reason: "mine" } });
    expect(selfLink.status).toBe(403);
    const selfPage = await h.call("POST", local(urls.approvalPage), {
      ...form({ decision: "approve", "f.reason": "mine" }),
      token: h.tokens.operate,
    });
    expect(selfPage.status).toBe(403);
    const other = await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, {
      token: h.tokens.admin,
      body: { approve: true, value: { reason: "ok" } },
    });
    expect(other.status).toBe(200);
    const events = await h.store.listApprovalEvents(id);
    expect(events.map((e) => [e.actor, e.outcome, e.via])).toEqual([
      ["olivia", "forbidden", "api"],
      ["olivia", "forbidden", "link"],
      ["olivia", "forbidden", "page"],
      ["ada", "resolved", "api"],
    ]);
    const detail = await json(await h.call("GET", `/api/runs/${id}`, { token: h.tokens.read }));
    expect(detail.approvalEvents.map((e: any) => e.outcome)).toEqual([
      "forbidden",
      "forbidden",
      "forbidden",
      "resolved",
    ]);
  });

  it("the API explains refusals: invalid value (422), unknown key (404), no approval (409)", async () => {
    const { id } = await gate();
    const invalid = await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, {
      token: h.tokens.admin,
      body: { approve: true, value: { environment: "moon" } },
    });
    expect(invalid.status).toBe(422);
    expect((await json(invalid)).error.problems).toEqual([
      '"reason" is required',
      '"environment" must be one of "staging", "production"',
    ]);
    expect(
      (await h.call("POST", `/api/runs/${id}/approvals/other`, { token: h.tokens.admin, body: { approve: true } }))
        .status,
    ).toBe(404);
    expect(
      (await h.call("POST", `/api/runs/${id}/approvals/waitForApproval`, { token: h.tokens.admin, body: {} })).status,
    ).toBe(400);
    const detail = await json(await h.call("GET", `/api/runs/${id}`, { token: h.tokens.read }));
    expect(detail.approvals).toEqual([
      expect.objectContaining({
        key: "waitForApproval",
        selfApproval: false,
        timeoutSeconds: 3600,
        form: expect.objectContaining({ order: ["environment", "reason", "priority", "notify"], required: ["reason"] }),
      }),
    ]);
    await h.engine.cancel(id);
    const missing = await h.call("POST", `/api/runs/no-such-run/approvals/waitForApproval`, {
      token: h.tokens.admin,
      body: { approve: true },
    });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error).toMatchObject({
      code: "RUN_NOT_FOUND",
      message: expect.stringMatching(/no run with id "no-such-run"/),
    });
    const hello = await h.start("hello", {});
    expect(
      (
        await h.call("POST", `/api/runs/${hello.id}/approvals/waitForApproval`, {
          token: h.tokens.admin,
          body: { approve: true },
        })
      ).status,
    ).toBe(404);
  });
});
