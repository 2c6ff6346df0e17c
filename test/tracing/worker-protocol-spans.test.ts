/**
 * The server's spans for the claims of external workers, recorded by the OpenTelemetry SDK's
 * InMemorySpanExporter: each claim answered is a `run` span under the context stored with the
 * run, its traceparent is what the claim answer hands the worker, a park's children hang under
 * it (`child`), a sleep is a `park` span, and it ends with how the claim ended (`succeeded`,
 * `suspended`, `fenced` for a lease found lost). In-process (`app.request`) on a real SQLite engine.
 */
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseRetryDelay } from "../../src/core/backoff.js";
import { sweepQuietExternalLeases } from "../../src/engine/external-leases.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { createEngine, type Engine } from "../../src/index.js";
import { reclaimExpiredLeases } from "../../src/worker/reclaim.js";
import { tempDir } from "../helpers/tmp.js";
import { ancestry, one, parentOf, type SpanView } from "./spans.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TP = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let engine: Engine;
let app: SluiceApp;
let database: string;

function spans(): SpanView[] {
  return exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    attributes: s.attributes as Record<string, unknown>,
  }));
}

beforeAll(async () => {
  provider.register();
  database = join(tempDir("sluice-wp-spans-"), "s.db");
  engine = createEngine({ database, worker: false, scheduler: false });
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const reg = await post("/api/worker/workflows", {
    workflows: [{ name: "s-parent" }, { name: "s-child" }, { name: "s-idle" }, { name: "s-swept" }],
  });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await provider.shutdown();
  trace.disable();
  context.disable();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const claim = async (workflow: string, workerId = "w") =>
  (await post("/api/worker/claim", { workerId, workflows: [workflow], waitMs: 2_000 })).body.claims as any[];
/** The span a claim answer's traceparent names. */
const spanIdOf = (traceparent: string) => traceparent.split("-")[2];

describe("the server's attempt spans for external workers", () => {
  it("a claim's traceparent is its attempt span, children and parks hang under it, and it ends with the claim", async () => {
    const created = await post("/api/runs", { workflow: "s-parent" }, { traceparent: TP, tracestate: "vendor=1" });
    expect(created.status).toBe(201);
    const id = created.body.run.id as string;
    const [c] = await claim("s-parent", "ext-1");
    expect(c.runId).toBe(id);
    // The same trace as the caller's, a new span (the attempt's), the caller's tracestate kept.
    expect(c.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(c.traceparent).not.toBe(TP);
    expect(c.tracestate).toBe("vendor=1");
    // Not ended yet: the claim is open.
    expect(spans().some((s) => s.name === "run s-parent")).toBe(false);

    const parked = await post(`/api/worker/runs/${id}/park`, {
      token: c.token,
      steps: [{ key: "nap", kind: "sleep", status: "pending", position: 1, wakeAfterMs: 50 }],
      children: [{ key: "kid", position: 0, workflow: "s-child", payload: {} }],
    });
    expect(parked.status).toBe(200);
    const all = spans();
    const first = one(all, "run s-parent");
    expect(first.spanId).toBe(spanIdOf(c.traceparent));
    // Under the enqueue's span (POST /api/runs), itself under the caller's.
    const enqueue = one(all, "enqueue s-parent");
    expect(parentOf(all, first)).toBe(enqueue);
    expect(enqueue.parentSpanId).toBe("00f067aa0ba902b7");
    expect(first.attributes).toMatchObject({
      "sluice.run.id": id,
      "sluice.workflow": "s-parent",
      "sluice.worker.id": "ext-1",
      "sluice.run.claim": c.token,
      "sluice.outcome": "suspended",
    });
    const park = one(all, "park sleep");
    expect(park.attributes).toMatchObject({ "sluice.step.key": "nap", "sluice.park.wake_after_ms": 50 });
    expect(parentOf(all, park)).toBe(first);
    const childSpan = one(all, "child s-child");
    expect(parentOf(all, childSpan)).toBe(first);

    const [kid] = await claim("s-child", "ext-2");
    expect(kid.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const fin = await post(`/api/worker/runs/${kid.runId}/finish`, {
      token: kid.token,
      outcome: "succeeded",
      result: 1,
    });
    expect(fin.status).toBe(200);
    const kidRun = one(spans(), "run s-child");
    expect(kidRun.spanId).toBe(spanIdOf(kid.traceparent));
    expect(kidRun.attributes).toMatchObject({ "sluice.outcome": "succeeded", "sluice.run.parent_id": id });
    expect(ancestry(spans(), kidRun)).toEqual(["child s-child", "run s-parent", "enqueue s-parent"]);
  });

  it("a failed finish ends the span with an error; a lease a heartbeat finds lost ends it as fenced", async () => {
    const a = await post("/api/runs", { workflow: "s-child" });
    const [ca] = await claim("s-child");
    expect(ca.runId).toBe(a.body.run.id);
    const finished = await post(`/api/worker/runs/${ca.runId}/finish`, {
      token: ca.token,
      outcome: "failed",
      error: { name: "Error", message: "boom" },
    });
    expect(finished.body).toEqual({ status: "failed" });
    const failed = one(spans(), "run s-child", { "sluice.run.id": a.body.run.id });
    expect(failed.attributes["sluice.outcome"]).toBe("failed");
    const raw = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === failed.spanId)!;
    expect(raw.status).toMatchObject({ code: 2, message: "boom" });

    const b = await post("/api/runs", { workflow: "s-child" });
    const [cb] = await claim("s-child");
    // Another claim of the run took over: this one's token is stale.
    const hb = await post("/api/worker/heartbeat", { leases: [{ runId: cb.runId, token: cb.token + 1 }] });
    expect(hb.status).toBe(200);
    expect(spans().filter((s) => s.name === "run s-child" && s.attributes["sluice.run.id"] === b.body.run.id)).toEqual(
      [],
    );
    const cancelled = await post(`/api/runs/${cb.runId}/cancel`, {});
    expect(cancelled.status).toBeLessThan(300);
    const lost = await post("/api/worker/heartbeat", { leases: [{ runId: cb.runId, token: cb.token }] });
    expect(lost.body.lost).toEqual([cb.runId]);
    const run = one(spans(), "run s-child", { "sluice.run.id": b.body.run.id });
    expect(run.attributes["sluice.outcome"]).toBe("fenced");
  });

  it("a claim whose lease expires and is reclaimed ends as abandoned, beside the run's reclaim span", async () => {
    const c = await post("/api/runs", { workflow: "s-child" });
    const id = c.body.run.id as string;
    const [held] = (
      await post("/api/worker/claim", { workerId: "gone", workflows: ["s-child"], leaseMs: 1_000, waitMs: 2_000 })
    ).body.claims as any[];
    expect(held.runId).toBe(id);
    await new Promise((r) => setTimeout(r, 1_200));
    // A claim for another workflow reclaims expired leases on its way (and finds nothing of its own).
    expect(await claim("s-idle")).toEqual([]);
    const run = one(spans(), "run s-child", { "sluice.run.id": id });
    expect(run.spanId).toBe(spanIdOf(held.traceparent));
    expect(run.attributes["sluice.outcome"]).toBe("abandoned");
    expect(one(spans(), "reclaim s-child", { "sluice.run.id": id }).attributes["sluice.outcome"]).toBe("retry");
  });

  it("a claim another process reclaimed ends as abandoned once its quiet worker is looked up; one still held is kept", async () => {
    const a = (await post("/api/runs", { workflow: "s-swept" })).body.run.id as string;
    const [gone] = (
      await post("/api/worker/claim", { workerId: "gone-2", workflows: ["s-swept"], leaseMs: 1_000, waitMs: 2_000 })
    ).body.claims as any[];
    expect(gone.runId).toBe(a);
    const b = (await post("/api/runs", { workflow: "s-swept" })).body.run.id as string;
    const [alive] = (
      await post("/api/worker/claim", { workerId: "alive", workflows: ["s-swept"], leaseMs: 600_000, waitMs: 2_000 })
    ).body.claims as any[];
    expect(alive.runId).toBe(b);
    await new Promise((r) => setTimeout(r, 1_200));
    // Another server on the same database reclaims the expired lease: this process hears nothing of it.
    const other = createEngine({ database, worker: false, scheduler: false });
    try {
      const { ids } = await reclaimExpiredLeases(other.store, leaseRetryDelay(), null, other.events);
      expect(ids).toEqual([a]);
    } finally {
      await other.stop({ drainMs: 0 });
    }
    // Heard from 1 s ago: not quiet yet, nothing is looked up.
    expect(await sweepQuietExternalLeases(engine, Date.now(), 60_000)).toBe(0);
    expect(spans().filter((s) => s.attributes["sluice.run.id"] === a && s.name === "run s-swept")).toEqual([]);
    // Quiet for longer: the reclaimed claim ends; the one still leased to its worker stays open.
    expect(await sweepQuietExternalLeases(engine, Date.now() + 120_000, 60_000)).toBe(1);
    const run = one(spans(), "run s-swept", { "sluice.run.id": a });
    expect(run.spanId).toBe(spanIdOf(gone.traceparent));
    expect(run.attributes["sluice.outcome"]).toBe("abandoned");
    expect(spans().filter((s) => s.attributes["sluice.run.id"] === b && s.name === "run s-swept")).toEqual([]);
    // A heartbeat keeps a claim from being looked up at all.
    expect((await post("/api/worker/heartbeat", { leases: [{ runId: b, token: alive.token }] })).body.lost).toEqual([]);
    expect(engine.externalLeases.quiet(Date.now() + 30_000, 60_000)).toEqual([]);
    const done = await post(`/api/worker/runs/${b}/finish`, { token: alive.token, outcome: "succeeded", result: 1 });
    expect(done.body).toEqual({ status: "succeeded" });
  });
});
