/** @jsxImportSource hono/jsx */
/**
 * The approval page of `getResumeUrls().approvalPage`: `GET /approve/:id/:key?token=…`
 * shows it, `POST` (the page's form) decides. Answers: 200 decided, 403 self-approval
 * or a forged link, 409 after a timeout, a cancel or an earlier decision, 410 for an
 * expired link, 422 for an invalid form.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { InvalidResumeTokenError, type ResumeClaims, verifyResumeToken } from "../../core/resume-token.js";
import type { AppDeps, AppEnv } from "../context.js";
import { HttpError, httpStatusOf } from "../errors.js";
import { FIELD_PREFIX, formValueFromInput } from "../form-fields.js";
import { parseSafeJson, readBodyText } from "../json-body.js";
import { ApprovalRefusedError, decide } from "./decide.js";
import { linkActor } from "./link-actor.js";
import { ApprovalPage, LinkErrorPage, type PageNotice } from "./page.js";
import { loadApproval } from "./state.js";
import { APPROVAL_CSS, APPROVAL_CSS_PATH } from "./styles.js";

/** Security headers of the page: no scripts at all, styles from this server only, never framed. */
const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "Cache-Control": "no-store",
  "Referrer-Policy": "same-origin",
};

/** Renders a page element into a complete HTML document (with its doctype). */
async function htmlDocument(element: { toString(): string | Promise<string> }): Promise<string> {
  return `<!doctype html>${await element.toString()}`;
}

/** Registers the page routes and the page's stylesheet. */
export function approvalPageRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;

  app.get(APPROVAL_CSS_PATH, (c) =>
    c.body(APPROVAL_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=300" }),
  );

  const claimsOf = async (c: Context<AppEnv>): Promise<ResumeClaims | Response> => {
    const runId = c.req.param("id")!;
    const key = c.req.param("key")!;
    try {
      return verifyResumeToken(
        await engine.resumeSecret(),
        c.req.query("token"),
        { runId, key, action: "page" },
        deps.clock.now(),
      );
    } catch (err) {
      if (!(err instanceof InvalidResumeTokenError)) throw err;
      return c.html(await htmlDocument(<LinkErrorPage message={err.message} />), httpStatusOf(err), PAGE_HEADERS);
    }
  };

  const render = async (
    c: Context<AppEnv>,
    claims: ResumeClaims,
    status?: ContentfulStatusCode,
    notice?: PageNotice,
    input?: Record<string, string>,
  ) => {
    const now = deps.clock.now();
    const view = await loadApproval(engine.store, claims.runId, claims.key, now);
    const page = (
      <ApprovalPage
        view={view}
        action={c.req.path + "?token=" + encodeURIComponent(c.req.query("token") ?? "")}
        runUrl={`/runs/${encodeURIComponent(claims.runId)}`}
        now={now}
        linkApprover={claims.approver}
        notice={notice}
        input={input}
      />
    );
    return c.html(await htmlDocument(page), status ?? (view.state === "missing" ? 404 : 200), PAGE_HEADERS);
  };

  app.get("/approve/:id/:key", async (c) => {
    const claims = await claimsOf(c);
    return claims instanceof Response ? claims : render(c, claims);
  });

  app.post("/approve/:id/:key", async (c) => {
    const claims = await claimsOf(c);
    if (claims instanceof Response) return claims;
    const form = new URLSearchParams(await readBodyText(c, deps.limits.maxBytes));
    const approve = form.get("decision") !== "reject";
    const input: Record<string, string> = {};
    for (const [name, v] of form) if (name.startsWith(FIELD_PREFIX)) input[name.slice(FIELD_PREFIX.length)] = v;
    try {
      let value: unknown;
      if (approve) {
        const view = await loadApproval(engine.store, claims.runId, claims.key, deps.clock.now());
        const parsed = formValueFromInput(view.form, input);
        if (parsed.problems.length) throw new ApprovalRefusedError("invalid", claims.runId, parsed.problems);
        value = parseSafeJson(JSON.stringify(parsed.value), deps.limits.maxDepth);
      }
      const actor = await linkActor(engine, c.get("identity"), claims);
      await decide(engine, { runId: claims.runId, key: claims.key, approve, value, actor, via: "page" });
      return render(c, claims, 200, {
        kind: "ok",
        text: approve ? "Approved: the run resumes." : "Rejected: the run resumes with approved = false.",
      });
    } catch (err) {
      if (!(err instanceof HttpError) && httpStatusOf(err) === 500) throw err;
      const problems = err instanceof ApprovalRefusedError ? err.problems : [];
      return render(c, claims, httpStatusOf(err), { kind: "error", text: (err as Error).message, problems }, input);
    }
  });
}
