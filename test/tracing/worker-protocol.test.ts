/**
 * The worker protocol hands the run's trace context to external workers: the claim answer
 * carries the `traceparent` (and `tracestate`) stored at enqueue, and child runs created by
 * a park continue the parent's. In-process (`app.request`) on a real SQLite engine.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { createEngine, type Engine } from "../../src/index.js";
import { tempDir } from "../helpers/tmp.js";

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let engine: Engine;
let app: SluiceApp;

beforeAll(async () => {
  engine = createEngine({ database: join(tempDir("sluice-wp-trace-"), "s.db"), worker: false, scheduler: false });
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const reg = await post("/api/worker/workflows", { workflows: [{ name: "t-parent" }, { name: "t-child" }] });
  expect(reg.status).toBe(200);
});
afterAll(async () => engine?.stop({ drainMs: 100 }));

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const claim = async (workflow: string) =>
  (await post("/api/worker/claim", { workerId: "w", workflows: [workflow], waitMs: 2_000 })).body.claims as any[];

describe("trace context in the worker protocol", () => {
  it("a claim carries the traceparent sent with POST /api/runs, and a park's children continue it", async () => {
    const created = await post("/api/runs", { workflow: "t-parent" }, { traceparent: TP, tracestate: "vendor=1" });
    expect(created.status).toBe(201);
    const [c] = await claim("t-parent");
    expect(c).toMatchObject({ runId: created.body.run.id, traceparent: TP, tracestate: "vendor=1" });
    const parked = await post(`/api/worker/runs/${c.runId}/park`, {
      token: c.token,
      children: [{ key: "kid", position: 0, workflow: "t-child", payload: {} }],
    });
    expect(parked.status).toBe(200);
    const [kid] = await claim("t-child");
    expect(kid).toMatchObject({ traceparent: TP, tracestate: "vendor=1" });
  });

  it("a run enqueued outside any trace has no traceparent; a malformed header is ignored", async () => {
    await post("/api/runs", { workflow: "t-child" }, { traceparent: "not-a-traceparent" });
    const [c] = await claim("t-child");
    expect(c.runId).toBeTruthy();
    expect(c).not.toHaveProperty("traceparent");
    expect(c).not.toHaveProperty("tracestate");
  });
});
