/**
 * `GET /api/overview`: after a known workload the buckets, totals, slowest workflows and
 * waiting approvals agree with the store; trace ids become links through the configured
 * template (`SLUICE_TRACE_URL`), on the overview and on the run's page.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiOverview, ApiRunDetail } from "../../src/http/api-types.js";
import { awaitingApproval, startHarness, type HttpHarness } from "./harness.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
let h: HttpHarness;
let gate: string;
beforeAll(async () => {
  h = await startHarness({ mode: "tokens" }, { traceUrl: "https://jaeger.example/trace/{traceId}" });
  for (let i = 0; i < 2; i++) await h.start("hello", { name: `o${i}` }, { until: (r) => r.status === "succeeded" });
  await h.start("fails", {}, { until: (r) => r.status === "failed" });
  gate = (await h.start("f/gate", "staging", { until: awaitingApproval })).id;
  // What the tracing side stores at enqueue: the W3C traceparent in the run's options. Written here
  // with SQL because this test is about reading it, not about how enqueue records it.
  const db = new Database(join(h.root, ".sluice", "sluice.db"));
  db.prepare("UPDATE runs SET options = ? WHERE id = ?").run(
    JSON.stringify({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }),
    gate,
  );
  db.close();
});
afterAll(async () => h?.close());

async function overview(window?: string, token = h.tokens.read) {
  return h.call("GET", `/api/overview${window ? `?window=${window}` : ""}`, { token });
}

describe("GET /api/overview", () => {
  it("needs the read scope and a known window", async () => {
    expect((await overview("1h", h.tokens.metrics)).status).toBe(403);
    const bad = await overview("7d");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "INVALID_OVERVIEW_WINDOW",
      message: expect.stringMatching(/use 1h or 1d/),
    });
  });

  it.each([
    ["1h", 60, 60_000],
    ["1d", 96, 900_000],
  ])("window %s: buckets, totals and the queue agree with the store", async (window, buckets, bucketMs) => {
    const res = await overview(window);
    expect(res.status).toBe(200);
    const o = (await res.json()) as ApiOverview;
    expect(o.window).toBe(window);
    expect(o.bucketMs).toBe(bucketMs);
    expect(o.buckets).toHaveLength(buckets);
    const starts = o.buckets.map((b) => Date.parse(b.start));
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBe(bucketMs);
    expect(starts[starts.length - 1]!).toBeLessThanOrEqual(Date.parse(o.now));
    // Every run of this fresh database was made within the window.
    expect(o.totals.succeeded).toBe(await h.store.countRuns({ status: ["succeeded"] }));
    expect(o.totals.failed).toBe(await h.store.countRuns({ status: ["failed"] }));
    expect(o.totals.failed).toBe(1);
    expect(o.totals.enqueued).toBe(await h.store.countRuns({}));
    expect(o.totals.finished).toBe(o.totals.succeeded + o.totals.failed + o.totals.cancelled);
    const pending = await h.store.listRuns({ status: ["pending"], limit: 1000 });
    expect(o.queuedNow).toBe(pending.filter((r) => r.startedAt === null).length);
    expect(o.buckets.reduce((n, b) => n + b.enqueued, 0)).toBe(o.totals.enqueued);
    const names = o.slowest.map((w) => w.workflow);
    expect(names).toEqual(expect.arrayContaining(["hello", "fails"]));
    expect(o.slowest.find((w) => w.workflow === "hello")!.runs).toBe(2);
    for (let i = 1; i < o.slowest.length; i++)
      expect(o.slowest[i - 1]!.meanMs).toBeGreaterThanOrEqual(o.slowest[i]!.meanMs);
    expect(o.approvals).toEqual([
      {
        runId: gate,
        workflow: "f/gate",
        key: expect.any(String),
        since: expect.any(String),
        trace: { id: TRACE, url: `https://jaeger.example/trace/${TRACE}` },
      },
    ]);
  });

  it("the run's page carries its trace id and link; runs without a trace have none", async () => {
    const detail = (await (await h.call("GET", `/api/runs/${gate}`, { token: h.tokens.read })).json()) as ApiRunDetail;
    expect(detail.run.traceId).toBe(TRACE);
    expect(detail.trace).toEqual({ id: TRACE, url: `https://jaeger.example/trace/${TRACE}` });
    const [hello] = await h.store.listRuns({ workflow: "hello", limit: 1 });
    const plain = (await (
      await h.call("GET", `/api/runs/${hello!.id}`, { token: h.tokens.read })
    ).json()) as ApiRunDetail;
    expect(plain.run.traceId).toBeNull();
    expect(plain.trace).toBeNull();
  });
});
