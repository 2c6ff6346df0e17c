/**
 * The worker protocol (docs/PROTOCOL.md): how an out-of-process worker (the Go SDK,
 * any language) registers workflows, claims runs and reports on them. Every write is
 * a store verb the built-in worker uses (`saveSteps`, `suspend`, `complete`,
 * `heartbeat`, `appendLogs`) under the claim's fencing token; a stale token is
 * refused with 409 `LEASE_LOST` and nothing is written.
 */
import type { Context, Hono } from "hono";
import { backoffDelay } from "../../core/backoff.js";
import { encodeValue } from "../../core/serde.js";
import { InvalidInputError, LeaseLostError, RunNotFoundError } from "../../sdk/errors.js";
import type { CommandResult, LogLine, RunOutcome } from "../../store/types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { ConflictError } from "../errors.js";
import { bodyObject, onlyFields, optInt } from "../input.js";
import { readJsonBody } from "../json-body.js";
import { ExternalClaims } from "../worker-protocol/claims.js";
import {
  type FinishMessage,
  parseClaim,
  parseFinish,
  parseLease,
  parseRegister,
  parseSteps,
} from "../worker-protocol/messages.js";
import { WorkBell } from "../worker-protocol/work-bell.js";

/** A write named a claim that is no longer the run's current one (409). */
export class LeaseLostHttpError extends ConflictError {
  constructor(runId: string) {
    super("LEASE_LOST", new LeaseLostError(runId).message + ": stop working on this claim (do not retry the write)");
  }
}

const LOG_LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Registers the worker protocol's routes (scope `worker`). */
export function workerProtocolRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;
  const claims = new ExternalClaims(engine, new WorkBell(engine));
  const body = async (c: Context<AppEnv>, example: string) => bodyObject(await readJsonBody(c, deps.limits), example);
  const fenced = (r: CommandResult, runId: string) => {
    if (!r.ok && r.fenced) throw new LeaseLostHttpError(runId);
    if (!r.ok) throw new ConflictError(r.error.code ?? "WRITE_REFUSED", r.error.message);
  };

  app.post("/api/worker/workflows", requireScope("worker"), async (c) => {
    const infos = parseRegister(await readJsonBody(c, deps.limits));
    await engine.registerExternal(infos);
    return c.json({ registered: infos.map((w) => w.name) });
  });

  app.post("/api/worker/claim", requireScope("worker"), async (c) => {
    const msg = parseClaim(await readJsonBody(c, deps.limits));
    // The node adapter aborts the request's signal when the worker hangs up mid-poll.
    return c.json({ claims: await claims.claim(msg, c.req.raw.signal) });
  });

  app.post("/api/worker/heartbeat", requireScope("worker"), async (c) => {
    const b = await body(c, '{"leases": [{"runId": "...", "token": 3}], "leaseMs": 30000}');
    onlyFields(b, ["leases", "leaseMs"]);
    if (!Array.isArray(b.leases))
      throw new InvalidInputError('"leases" must be an array of {runId, token}', { code: "INVALID_BODY" });
    const leases = b.leases.map((l) => {
      const o = bodyObject(l, '{"runId": "...", "token": 3}');
      return parseLease(String(o.runId ?? ""), o);
    });
    const r = await engine.committer.submit({
      verb: "heartbeat",
      leases,
      leaseMs: optInt(b, "leaseMs", 1_000, 600_000) ?? 30_000,
    });
    if (!r.ok) throw new Error("heartbeat refused");
    return c.json({ lost: r.lost ?? [] });
  });

  app.post("/api/worker/runs/:id/steps", requireScope("worker"), async (c) => {
    const runId = c.req.param("id");
    const b = await body(
      c,
      '{"token": 3, "steps": [{"key": "charge", "kind": "step", "status": "done", "position": 0, "value": 1}]}',
    );
    onlyFields(b, ["token", "steps"]);
    const lease = parseLease(runId, b);
    const steps = parseSteps(b.steps, engine.maxValueLimit);
    fenced(await engine.committer.submit({ verb: "saveSteps", lease, steps }), runId);
    return c.json({ saved: steps.map((s) => s.key) });
  });

  app.post("/api/worker/runs/:id/park", requireScope("worker"), async (c) => {
    const runId = c.req.param("id");
    const b = await body(
      c,
      '{"token": 3, "steps": [{"key": "nap", "kind": "sleep", "status": "pending", "position": 1, "wakeAfterMs": 60000}], "wakeAfterMs": 60000}',
    );
    onlyFields(b, ["token", "steps", "wakeAfterMs"]);
    const lease = parseLease(runId, b);
    const steps = parseSteps(b.steps, engine.maxValueLimit);
    const wakeAfterMs = optInt(b, "wakeAfterMs", 0, Number.MAX_SAFE_INTEGER) ?? null;
    fenced(
      await engine.committer.submit({ verb: "suspend", lease, steps, children: [], wakeAfterMs, awaitChildren: false }),
      runId,
    );
    engine.events.emit("work");
    return c.json({ status: "waiting" });
  });

  app.post("/api/worker/runs/:id/finish", requireScope("worker"), async (c) => {
    const runId = c.req.param("id");
    const b = await body(c, '{"token": 3, "outcome": "succeeded", "result": {"ok": true}}');
    onlyFields(b, ["token", "outcome", "result", "error", "reason"]);
    const lease = parseLease(runId, b);
    const msg = parseFinish(b);
    const run = await engine.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    const outcome = toOutcome(msg, run, engine.maxValueLimit);
    fenced(await engine.committer.submit({ verb: "complete", lease, outcome }), runId);
    engine.events.emit("settled", runId);
    engine.events.emit("work");
    return c.json({
      status: outcome.status === "retry" ? "pending" : outcome.status,
      ...(outcome.status === "retry" ? { retryInMs: outcome.delayMs } : {}),
    });
  });

  app.post("/api/worker/runs/:id/logs", requireScope("worker"), async (c) => {
    const runId = c.req.param("id");
    const b = await body(
      c,
      '{"token": 3, "attempt": 1, "lines": [{"level": "info", "message": "charged", "stepKey": "charge"}]}',
    );
    onlyFields(b, ["token", "attempt", "lines"]);
    const { token } = parseLease(runId, b);
    const attempt = optInt(b, "attempt", 1, 1_000_000) ?? 1;
    if (!Array.isArray(b.lines))
      throw new InvalidInputError('"lines" must be an array of {level, message, stepKey?}', { code: "INVALID_BODY" });
    const lines: LogLine[] = b.lines.map((l) => {
      const o = bodyObject(l, '{"level": "info", "message": "hello"}');
      const level = o.level === undefined ? "info" : (o.level as LogLine["level"]);
      if (!LOG_LEVELS.has(level))
        throw new InvalidInputError(`"level" must be one of debug, info, warn, error`, { code: "INVALID_BODY" });
      return {
        runId,
        token,
        attempt,
        level,
        message: String(o.message ?? ""),
        stepKey: typeof o.stepKey === "string" ? o.stepKey : null,
        ts: Date.now(),
      };
    });
    for (const line of lines) engine.committer.log(line);
    await engine.committer.drain();
    return c.json({ accepted: lines.length });
  });
}

/** The store outcome for a worker's finish; `retry` becomes `failed` once attempts are spent, with the run's backoff. */
function toOutcome(
  msg: FinishMessage,
  run: { attempt: number; maxAttempts: number; backoff: { base: number; max: number }; id: string },
  maxBytes: number,
): RunOutcome {
  switch (msg.outcome) {
    case "succeeded":
      return { status: "succeeded", result: encodeValue(msg.result, `result of run ${run.id}`, maxBytes) };
    case "failed":
      return { status: "failed", error: msg.error };
    case "cancelled":
      return { status: "cancelled", reason: msg.reason };
    case "retry":
      if (run.attempt >= run.maxAttempts) return { status: "failed", error: msg.error };
      return { status: "retry", error: msg.error, delayMs: backoffDelay(run.backoff, run.attempt) };
  }
}
