/**
 * The pipeline routes of the HTTP API, in-process with `app.request`: graph and status,
 * a webhook running a script with the request body, a plan ("run up to here"), one step
 * with or without its downstream, and the token scopes they need.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { decodeValue } from "../../src/core/serde.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "../../src/pipeline/runtime/backfill-workflow.js";
import { eventually } from "../helpers/tmp.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const FILES = {
  "f/api/pipeline.json": JSON.stringify({ triggers: { hook: { webhook: true } } }),
  "f/api/hook.ts": `// pipeline
// on webhook
import * as wmill from 'windmill-client';
export async function main(order: string, amount: number) {
  await wmill.writeS3File({ s3: 'api/orders/' + order + '.json' }, JSON.stringify({ amount }));
  return { order, amount };
}
`,
  "f/api/start.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() { await wmill.writeS3File({ s3: 'api/a.json' }, '1'); }
`,
  "f/api/middle.ts": `// pipeline
// on s3://api/a.json
import * as wmill from 'windmill-client';
export async function main() { await wmill.writeS3File({ s3: 'api/b.json' }, '2'); }
`,
  "f/api/last.ts": `// pipeline
// on s3://api/b.json
export async function main() { return 'last'; }
`,
  "f/slow/nap.ts": `// pipeline
export async function main(partition: string) {
  await new Promise((r) => setTimeout(r, 300));
  return partition;
}
`,
};

describe("pipeline HTTP routes", () => {
  let p: PipelineProject;
  let app: SluiceApp;
  let readToken: string;
  let operateToken: string;
  const call = async (method: string, path: string, body?: unknown, token = operateToken) => {
    const res = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  beforeAll(async () => {
    p = await startPipelines(FILES);
    app = createApp({ engine: p.engine, pipelines: p.pipelines, auth: { mode: "tokens" }, uiDir: null });
    const tokens = new ApiTokens(p.store);
    readToken = (await tokens.create({ name: "viewer", scope: "read" })).token;
    operateToken = (await tokens.create({ name: "ops", scope: "operate" })).token;
  });
  afterAll(async () => p?.close());

  it("lists the graph of every pipeline", async () => {
    const res = await call("GET", "/api/pipelines", undefined, readToken);
    expect(res.status).toBe(200);
    expect(res.json.pipelines[0].scripts.map((s: { name: string }) => s.name)).toEqual([
      "f/api/hook",
      "f/api/start",
      "f/api/middle",
      "f/api/last",
    ]);
  });

  it("runs a script from its webhook with the body, and needs the operate scope", async () => {
    expect(
      (await call("POST", "/api/pipelines/webhook/f/api/hook", { order: "o-1", amount: 7 }, readToken)).status,
    ).toBe(403);
    const res = await call("POST", "/api/pipelines/webhook/f/api/hook", { order: "o-1", amount: 7 });
    expect(res.status).toBe(202);
    expect(await p.engine.handle(res.json.run).result({ timeoutMs: 10_000 })).toEqual({ order: "o-1", amount: 7 });
    const missing = await call("POST", "/api/pipelines/webhook/f/api/start", {});
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("PIPELINE_TRIGGER_NOT_CONFIGURED");
    expect((await call("POST", "/api/pipelines/webhook/f/api/nope", {})).status).toBe(404);
  });

  it("plans and runs up to a node, from any script", async () => {
    const dry = await call("POST", "/api/pipelines/plan", {
      folder: "f/api",
      from: "middle",
      to: ["last"],
      dryRun: true,
    });
    expect(dry).toMatchObject({ status: 200, json: { steps: ["f/api/middle.ts", "f/api/last.ts"], run: null } });
    // Two starts (hook, start), of which only start leads to b.json: it is the start without `from`.
    const sole = await call("POST", "/api/pipelines/plan", { folder: "f/api", to: "s3://api/b.json", dryRun: true });
    expect(sole).toMatchObject({ status: 200, json: { start: "f/api/start.ts", run: null } });
    const res = await call("POST", "/api/pipelines/plan", { folder: "f/api", from: "start", to: "s3://api/b.json" });
    expect(res.status).toBe(202);
    expect(res.json.steps).toEqual(["f/api/start.ts", "f/api/middle.ts"]);
    await p.engine.handle(res.json.run).result({ timeoutMs: 10_000 });
    await p.settle();
    expect(await p.runsOf("f/api/last")).toHaveLength(0);
    expect((await call("POST", "/api/pipelines/plan", { folder: "f/api", to: "nowhere" })).status).toBe(404);
  });

  it("runs one step with its downstream, or alone", async () => {
    const alone = await call("POST", "/api/pipelines/scripts/f/api/middle/run", { cascade: false });
    await p.engine.handle(alone.json.run).result({ timeoutMs: 10_000 });
    await p.settle();
    expect(await p.runsOf("f/api/last")).toHaveLength(0);
    const down = await call("POST", "/api/pipelines/scripts/f/api/middle.ts/run", {});
    await p.engine.handle(down.json.run).result({ timeoutMs: 10_000 });
    await p.settle();
    expect((await p.runsOf("f/api/last")).map((r) => decodeValue(r.result))).toEqual(["last"]);
  });

  it("lists backfills with the state of every partition", async () => {
    const payload: BackfillPayload = { folder: "f/api", steps: ["f/api/start.ts"], partitions: ["k1", "k2"] };
    const h = await p.engine.enqueueRun(BACKFILL_WORKFLOW, payload);
    await h.result({ timeoutMs: 15_000 });
    const list = await call("GET", "/api/pipelines/backfills?folder=f/api", undefined, readToken);
    expect(list.status).toBe(200);
    expect(list.json.backfills[0]).toMatchObject({ id: h.id, status: "succeeded", folder: "f/api", finished: 2 });
    const one = await call("GET", `/api/pipelines/backfills/${h.id}`, undefined, readToken);
    expect(one.json.partitions.map((x: { partition: string; state: string }) => [x.partition, x.state])).toEqual([
      ["k1", "succeeded"],
      ["k2", "succeeded"],
    ]);
    expect((await call("GET", "/api/pipelines/backfills?folder=f/other", undefined, readToken)).json.backfills).toEqual(
      [],
    );
    const missing = await call("GET", "/api/pipelines/backfills/nope", undefined, readToken);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("PIPELINE_BACKFILL_UNKNOWN");
  });

  it("cancels a backfill gracefully and resumes only what did not succeed (operate scope)", async () => {
    const partitions = ["p1", "p2", "p3", "p4", "p5", "p6"];
    const payload: BackfillPayload = { folder: "f/slow", steps: ["f/slow/nap.ts"], partitions, concurrency: 1 };
    const h = await p.engine.enqueueRun(BACKFILL_WORKFLOW, payload);
    const progress = async (id: string) =>
      (await call("GET", `/api/pipelines/backfills/${id}`, undefined, readToken)).json;
    await eventually(async () => (await progress(h.id)).counts.succeeded >= 1, 15_000, 20);
    const denied = await call("POST", `/api/pipelines/backfills/${h.id}/cancel`, undefined, readToken);
    expect(denied.status).toBe(403);
    const cancel = await call("POST", `/api/pipelines/backfills/${h.id}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.json).toMatchObject({ id: h.id, cancelling: true });
    const cancelled = await eventually(async () => {
      const x = await progress(h.id);
      return x.status === "cancelled" ? x : null;
    }, 15_000);
    const succeeded = cancelled.counts.succeeded as number;
    expect(succeeded).toBeGreaterThanOrEqual(1);
    expect(succeeded).toBeLessThan(6);
    const again = await call("POST", `/api/pipelines/backfills/${h.id}/cancel`);
    expect(again).toMatchObject({ status: 409, json: { error: { code: "PIPELINE_BACKFILL_FINISHED" } } });

    expect((await call("POST", `/api/pipelines/backfills/${h.id}/resume`, undefined, readToken)).status).toBe(403);
    const resume = await call("POST", `/api/pipelines/backfills/${h.id}/resume`);
    expect(resume.status).toBe(202);
    expect(resume.json.resumeOf).toBe(h.id);
    await p.engine.handle(resume.json.id).result({ timeoutMs: 15_000 });
    const after = await progress(resume.json.id);
    expect(after).toMatchObject({ status: "succeeded", resumeOf: h.id });
    expect(after.counts.skipped).toBe(succeeded);
    expect(after.counts.succeeded).toBe(6 - succeeded);
    // Each partition ran exactly once over both backfills.
    const runs = await p.runsOf("f/slow/nap");
    expect(
      runs
        .filter((r) => r.status === "succeeded")
        .map((r) => decodeValue(r.result))
        .sort(),
    ).toEqual(partitions);
    const done = await call("POST", `/api/pipelines/backfills/${resume.json.id}/resume`);
    expect(done).toMatchObject({ status: 409, json: { error: { code: "PIPELINE_BACKFILL_FINISHED" } } });
    expect((await call("POST", "/api/pipelines/backfills/nope/resume")).status).toBe(404);
    expect((await call("POST", "/api/pipelines/backfills/nope/cancel")).status).toBe(404);
  });

  it("reports status with written partitions and decisions", async () => {
    const res = await call("GET", "/api/pipelines/status?folder=f/api", undefined, readToken);
    expect(res.status).toBe(200);
    expect(res.json.assets.find((a: { uri: string }) => a.uri === "s3://api/b.json").partitions).toHaveLength(1);
    expect(res.json.decisions[0]).toMatchObject({ outcome: "dispatched", subscriber: "f/api/last.ts" });
    const all = res.json.decisions as Array<{ outcome: string; producerRun?: string; run?: string }>;
    expect(new Set(all.map((d) => d.outcome))).toEqual(new Set(["dispatched", "skipped"]));
    const skipped = await call("GET", "/api/pipelines/status?folder=f/api&decisionKind=skipped", undefined, readToken);
    expect(skipped.json.decisions.length).toBe(all.filter((d) => d.outcome === "skipped").length);
    expect(skipped.json.decisions.every((d: { outcome: string }) => d.outcome === "skipped")).toBe(true);
    const producer = all[0]!.producerRun!;
    const byRun = await call("GET", `/api/pipelines/status?folder=f/api&decisionRun=${producer}`, undefined, readToken);
    expect(byRun.json.decisions.length).toBeGreaterThan(0);
    expect(
      byRun.json.decisions.every(
        (d: { producerRun?: string; run?: string }) => d.producerRun === producer || d.run === producer,
      ),
    ).toBe(true);
    expect(byRun.json.decisions.length).toBeLessThan(all.length);
    const bad = await call("GET", "/api/pipelines/status?folder=f/api&decisionKind=nope", undefined, readToken);
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/unknown decision kind "nope"; kinds: dispatched/);
  });
});
