/**
 * The worker protocol (docs/PROTOCOL.md): how an out-of-process worker (the Go SDK,
 * any language) registers workflows, claims runs and reports on them. Every write is
 * a store verb the built-in worker uses (`saveSteps`, `suspend`, `complete`,
 * `heartbeat`, `appendLogs`) under the claim's fencing token; a stale token is
 * refused with 409 `LEASE_LOST` and nothing is written. `POST /api/worker/batch`
 * carries many such writes (of many claims) in one request.
 */
import type { Context, Hono } from "hono";
import { InvalidInputError } from "../../sdk/errors.js";
import { requireScope } from "../auth/identity.js";
import { NotFoundError } from "../errors.js";
import type { AppDeps, AppEnv } from "../context.js";
import { bodyObject, onlyFields, optInt } from "../input.js";
import { readJsonBody } from "../json-body.js";
import { claimAssetCall } from "../worker-protocol/asset-calls.js";
import { applyBatch, parseBatch } from "../worker-protocol/batch.js";
import { CLAIM_WRITE_OPS, ClaimWrites } from "../worker-protocol/claim-writes.js";
import { ExternalClaims } from "../worker-protocol/claims.js";
import { parseClaim, parseLease, parseRegister } from "../worker-protocol/messages.js";
import { claimResumeUrls } from "../worker-protocol/resume-urls.js";
import { WorkBell } from "../worker-protocol/work-bell.js";

/** Largest body of an asset call (a `write_s3_file` of 48 MiB, as base64). */
const ASSET_BODY_BYTES = 64 * 1024 * 1024;
/**
 * Largest body of one claim write (a finish, checkpoint, park, children): well above the
 * engine's value limit (1 MiB by default), so a result, step value or child payload over that
 * limit is refused by the engine's own check, which names it ("result of run … is 2000002 bytes,
 * over the 1048576-byte limit"), and a value at the limit is not refused for its envelope.
 * Batches stay under the app's body limit (SDKs send a large write alone, to its own route).
 */
const CLAIM_WRITE_BODY_BYTES = 64 * 1024 * 1024;

/** Registers the worker protocol's routes (scope `worker`). */
export function workerProtocolRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;
  const claims = new ExternalClaims(engine, new WorkBell(engine));
  const body = async (c: Context<AppEnv>, example: string) => bodyObject(await readJsonBody(c, deps.limits), example);
  const writes = new ClaimWrites(engine);

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
    const lost = new Set(r.lost ?? []);
    for (const l of leases) if (lost.has(l.runId)) engine.externalLeases.forget(l, "fenced");
    engine.externalLeases.touch(leases.filter((l) => !lost.has(l.runId)));
    return c.json({ lost: r.lost ?? [] });
  });

  for (const op of CLAIM_WRITE_OPS) {
    app.post(`/api/worker/runs/:id/${op}`, requireScope("worker"), async (c) => {
      const limits = { ...deps.limits, maxBytes: Math.max(deps.limits.maxBytes, CLAIM_WRITE_BODY_BYTES) };
      const prepared = await writes.prepare(op, c.req.param("id"), await readJsonBody(c, limits));
      return c.json(await writes.apply(prepared));
    });
  }

  app.post("/api/worker/runs/:id/resume-urls", requireScope("worker"), async (c) => {
    const raw = await readJsonBody(c, deps.limits);
    return c.json(await claimResumeUrls(engine, c.req.param("id"), raw, () => deps.clock.now()));
  });

  // The stored code of a version (a workflow's bundle, by its hash): a worker that runs
  // project files (seed 000's Python host) loads the version a claim is pinned to from here.
  app.post("/api/worker/code", requireScope("worker"), async (c) => {
    const b = await body(c, '{"version": "3f2a…"}');
    onlyFields(b, ["version"]);
    const version = typeof b.version === "string" ? b.version : "";
    if (!version) throw new InvalidInputError('"version" must be the code version to load', { code: "INVALID_BODY" });
    const code = await engine.store.getBundle(version);
    if (code === null)
      throw new NotFoundError(
        `no code version ${JSON.stringify(version)} is stored: it was never loaded by a server of this database`,
        "CODE_VERSION_NOT_FOUND",
      );
    return c.json({ version, code });
  });

  // Asset helpers of a claim's code (seed 000's Python host): objects up to 64 MiB travel as base64.
  app.post("/api/worker/runs/:id/asset", requireScope("worker"), async (c) => {
    const raw = await readJsonBody(c, { ...deps.limits, maxBytes: Math.max(deps.limits.maxBytes, ASSET_BODY_BYTES) });
    return c.json(await claimAssetCall(engine, c.req.param("id"), raw));
  });

  app.post("/api/worker/batch", requireScope("worker"), async (c) => {
    const entries = parseBatch(await readJsonBody(c, deps.limits));
    return c.json({ results: await applyBatch(writes, entries, reportInternal) });
  });
}

/** Unexpected errors of single writes in a batch (the app's onError prints the others the same way). */
function reportInternal(err: unknown): void {
  console.error(`sluice http: ${(err as Error)?.stack ?? String(err)}`);
}
