/**
 * The `resume` and `cancel` URLs of `getResumeUrls()`:
 * `POST /api/runs/:id/approvals/:key/resume?token=…` approves (an optional JSON body is
 * the form value) and `…/cancel?token=…` rejects. They work with a plain `curl -X POST`:
 * the signed token is the credential, no bearer token is needed. Other methods answer 405
 * with `Allow: POST`.
 */
import type { Hono } from "hono";
import { verifyResumeToken } from "../../core/resume-token.js";
import type { ApiApprovalResult } from "../api-types.js";
import { decide } from "../approval/decide.js";
import { linkActor } from "../approval/link-actor.js";
import type { AppDeps, AppEnv } from "../context.js";
import { parseSafeJson, readBodyText } from "../json-body.js";

/** Registers the two link routes. */
export function resumeLinkRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;
  for (const action of ["resume", "cancel"] as const) {
    app.post(`/api/runs/:id/approvals/:key/${action}`, async (c) => {
      const runId = c.req.param("id");
      const key = c.req.param("key");
      const claims = verifyResumeToken(
        await engine.resumeSecret(),
        c.req.query("token"),
        { runId, key, action },
        deps.clock.now(),
      );
      // Any content type: `curl -d '{"reason":"LGTM"}'` sends a form type; the token already rules out cross-site posts.
      const text = await readBodyText(c, deps.limits.maxBytes);
      const value = text.trim() === "" ? undefined : parseSafeJson(text, deps.limits.maxDepth);
      const actor = await linkActor(engine, c.get("identity"), claims);
      const approve = action === "resume";
      const resolved = await decide(engine, {
        runId,
        key,
        approve,
        value: approve ? value : undefined,
        actor,
        via: "link",
      });
      const result: ApiApprovalResult = { runId, key: resolved, outcome: "resolved", approved: approve, actor };
      return c.json(result);
    });
    // Any other method (a browser opening the link sends GET): say how to use it instead of a bare 404.
    // Registered after the POST route, which answers POSTs first.
    app.all(`/api/runs/:id/approvals/:key/${action}`, (c) =>
      c.json(
        {
          error: {
            code: "METHOD_NOT_ALLOWED",
            message: `this ${action} link acts only on POST: curl -X POST '<the link>'; to decide in a browser, open the approvalPage link of getResumeUrls()`,
          },
        },
        405,
        { Allow: "POST" },
      ),
    );
  }
}
