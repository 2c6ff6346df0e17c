/** `POST /api/runs/:id/cancel`, `/retry` and `/approvals/:key` (approve or reject as the caller). */
import type { Hono } from "hono";
import { InvalidInputError, RunNotFoundError } from "../../sdk/errors.js";
import { isTerminal } from "../../store/types.js";
import type { ApiApprovalResult } from "../api-types.js";
import { decide } from "../approval/decide.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { ConflictError } from "../errors.js";
import { bodyObject, onlyFields, optString } from "../input.js";
import { readJsonBody } from "../json-body.js";

/** Registers the run action routes. */
export function runActionRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;

  app.post("/api/runs/:id/cancel", requireScope("operate"), async (c) => {
    const id = c.req.param("id");
    const body = bodyObject(await readJsonBody(c, deps.limits), '{"reason": "not needed any more"}');
    onlyFields(body, ["reason"]);
    const run = await engine.store.getRun(id);
    if (!run) throw new RunNotFoundError(id);
    if (isTerminal(run.status))
      throw new ConflictError("RUN_FINISHED", `run ${id} already ${run.status}: only unfinished runs can be cancelled`);
    const reason = optString(body, "reason") ?? `cancelled by ${c.get("identity")!.name}`;
    const status = await engine.cancel(id, reason);
    return c.json({ id, status });
  });

  app.post("/api/runs/:id/retry", requireScope("operate"), async (c) => {
    const id = c.req.param("id");
    bodyObject(await readJsonBody(c, deps.limits), "{}");
    const run = await engine.store.getRun(id);
    if (!run) throw new RunNotFoundError(id);
    if (run.status !== "failed" && run.status !== "cancelled") {
      throw new ConflictError(
        "RUN_NOT_RETRYABLE",
        `run ${id} is ${run.status}: only failed or cancelled runs can be retried`,
      );
    }
    const status = await engine.retry(id);
    return c.json({ id, status });
  });

  app.post("/api/runs/:id/approvals/:key", requireScope("operate"), async (c) => {
    const runId = c.req.param("id");
    const key = c.req.param("key");
    const body = bodyObject(await readJsonBody(c, deps.limits), '{"approve": true, "value": {"reason": "LGTM"}}');
    onlyFields(body, ["approve", "value"]);
    if (typeof body.approve !== "boolean") {
      throw new InvalidInputError('"approve" is required: true to approve, false to reject', { code: "INVALID_BODY" });
    }
    const actor = c.get("identity")!.name;
    const resolved = await decide(engine, { runId, key, approve: body.approve, value: body.value, actor, via: "api" });
    const result: ApiApprovalResult = { runId, key: resolved, outcome: "resolved", approved: body.approve, actor };
    return c.json(result);
  });
}
