/**
 * Traces of runs in one process, recorded by the OpenTelemetry SDK's InMemorySpanExporter:
 * parent → child → grandchild runs in one trace, steps and parks under their claim, a
 * 3-level pipeline cascade (TypeScript → TypeScript → Bash, which reads TRACEPARENT) in one
 * trace, and the trace context stored in the runs' options.
 */
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { followRuns } from "../../src/cli/printer.js";
import { traceCarrierOf } from "../../src/core/trace-context.js";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { SluiceContextManager } from "../../src/worker/otel-context.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { startPipelines } from "../pipeline/harness.js";
import { ancestry, one, parentOf, type SpanView } from "./spans.js";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

function spans(): SpanView[] {
  return exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    attributes: s.attributes as Record<string, unknown>,
  }));
}

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
  exporter.reset();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const HEADER = `import { workflow, task, step } from "windmill-client";\n`;

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

async function wacEngine(files: Record<string, string>): Promise<Engine> {
  const root = makeProject(files);
  const engine = createEngine({
    database: join(root, ".sluice", "sluice.db"),
    scheduler: false,
    worker: { pollMs: 50 },
  });
  engines.push(engine);
  await engine.start();
  expect((await new Project(root, engine).loadAll()).errors).toEqual([]);
  return engine;
}

const NEST = {
  "f/nest.ts": `${HEADER}
    async function leaf(n: number) { return n * 10; }
    async function mid(n: number) { const a = await step("prep", () => n + 1); return task(leaf)(a); }
    export const main = workflow(async () => { const x = await task(mid)(1); return step("done", () => x + 1); });`,
};

describe("without an SDK (the API only)", () => {
  it("stores no trace context when nothing is traced, and passes a caller's context on to every descendant", async () => {
    const engine = await wacEngine(NEST);
    const plain = await engine.enqueueRun("f/nest", {});
    expect(await plain.result({ timeoutMs: 10_000 })).toBe(21);
    const all = await engine.store.listRuns({ limit: 10 });
    expect(all).toHaveLength(3);
    for (const r of all) expect(r.options).toBeNull();

    const traced = await engine.enqueueRun("f/nest", {}, { trace: { traceparent: TP, tracestate: "k=v" } });
    expect(await traced.result({ timeoutMs: 10_000 })).toBe(21);
    const runs = (await engine.store.listRuns({ limit: 10 })).filter((r) => r.rootId === traced.id);
    expect(runs).toHaveLength(3);
    // Nothing records spans here, so the caller's context is what every run carries.
    for (const r of runs) expect(traceCarrierOf(r.options)).toEqual({ traceparent: TP, tracestate: "k=v" });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});

describe("with the SDK registered", () => {
  // The SDK's context manager, or (in-process-sluice-context.test.ts) the one `--otel` registers.
  beforeAll(() =>
    provider.register(
      process.env.SLUICE_TEST_OTEL_CONTEXT === "sluice" ? { contextManager: new SluiceContextManager() } : {},
    ),
  );

  it("parent → child → grandchild runs make one trace with claims, steps and children in their places", async () => {
    const engine = await wacEngine(NEST);
    const h = await engine.enqueueRun("f/nest", {}, { trace: { traceparent: TP } });
    expect(await h.result({ timeoutMs: 10_000 })).toBe(21);
    const all = spans();
    expect(new Set(all.map((s) => s.traceId))).toEqual(new Set(["4bf92f3577b34da6a3ce929d0e0e4736"]));
    const enqueue = one(all, "enqueue f/nest");
    expect(enqueue.parentSpanId).toBe("00f067aa0ba902b7");
    const runs = await engine.store.listRuns({ limit: 10 });
    const child = runs.find((r) => r.task === "mid")!;
    const grandchild = runs.find((r) => r.task === "leaf")!;
    expect(grandchild.parentId).toBe(child.id);
    // The parent is claimed twice (parks on its child, then finishes), both claims under the enqueue.
    const parentClaims = all.filter((s) => s.name === "run f/nest");
    expect(parentClaims.map((s) => s.attributes["sluice.outcome"]).sort()).toEqual(["succeeded", "suspended"]);
    for (const c of parentClaims) expect(parentOf(all, c)).toBe(enqueue);
    const suspended = parentClaims.find((s) => s.attributes["sluice.outcome"] === "suspended")!;
    const spawn = one(all, "child f/nest.mid");
    expect(spawn.attributes["sluice.child.run_id"]).toBe(child.id);
    expect(parentOf(all, spawn)).toBe(suspended);
    const midClaims = all.filter((s) => s.name === "run f/nest.mid");
    expect(midClaims).toHaveLength(2);
    for (const c of midClaims) {
      expect(parentOf(all, c)).toBe(spawn);
      expect(c.attributes).toMatchObject({ "sluice.run.id": child.id, "sluice.task": "mid", "sluice.run.attempt": 1 });
    }
    const prep = one(all, "step prep");
    expect(prep.attributes).toEqual({ "sluice.step.key": "prep", "sluice.step.attempt": 1 });
    expect(midClaims).toContain(parentOf(all, prep));
    const leafRun = one(all, "run f/nest.leaf", { "sluice.run.id": grandchild.id });
    expect(ancestry(all, leafRun)).toEqual([
      "child f/nest.leaf",
      "run f/nest.mid",
      "child f/nest.mid",
      "run f/nest",
      "enqueue f/nest",
    ]);
    expect(leafRun.attributes["sluice.outcome"]).toBe("succeeded");
    // What is stored is the context of the span that created each run.
    expect(traceCarrierOf(grandchild.options)?.traceparent).toBe(`00-${leafRun.traceId}-${leafRun.parentSpanId}-01`);
  });

  it("a Python workflow's tasks run in its trace and read their claim's context with wmill.trace_context()", async () => {
    const engine = await wacEngine({
      "f/py_trace.py": `from wmill import task, workflow, trace_context

@task
async def where():
    return trace_context()

@workflow
async def main():
    return {"child": await where(), "parent": trace_context()}
`,
    });
    const h = await engine.enqueueRun("f/py_trace", {}, { trace: { traceparent: TP } });
    const out = (await h.result({ timeoutMs: 30_000 })) as Record<string, { traceparent: string } | null>;
    const all = spans();
    const taskClaim = one(all, "run f/py_trace.where");
    expect(ancestry(all, taskClaim)).toEqual(["child f/py_trace.where", "run f/py_trace", "enqueue f/py_trace"]);
    expect(out.child?.traceparent).toBe(`00-${taskClaim.traceId}-${taskClaim.spanId}-01`);
    const finalClaim = one(all, "run f/py_trace", { "sluice.outcome": "succeeded" });
    expect(out.parent?.traceparent).toBe(`00-${finalClaim.traceId}-${finalClaim.spanId}-01`);
  });

  it("records parks, failed steps and retries with their outcome", async () => {
    let tries = 0;
    const wf = defineWorkflow("napper", {
      retries: 1,
      backoff: { base: 10, max: 10 },
      handler: async (_p, ctx) => {
        await ctx.sleep("nap", 80);
        await ctx.run(
          "flaky",
          () => {
            if (++tries === 1) throw new Error("boom");
            return tries;
          },
          { retries: 0 },
        );
        return "ok";
      },
    });
    const engine = createEngine({
      database: join(tempDir(), "n.db"),
      workflows: [wf],
      scheduler: false,
      inlineSleepMs: 10,
      worker: { pollMs: 20 },
    });
    engines.push(engine);
    await engine.start();
    const h = await wf.start(null);
    expect(await h.result({ timeoutMs: 10_000 })).toBe("ok");
    const all = spans();
    expect(new Set(all.map((s) => s.traceId)).size).toBe(1);
    const park = one(all, "park sleep");
    expect(park.attributes).toMatchObject({ "sluice.step.key": "nap", "sluice.park.wake_after_ms": 80 });
    const claims = all.filter((s) => s.name === "run napper");
    expect(claims.map((c) => c.attributes["sluice.outcome"])).toEqual(["suspended", "retry", "succeeded"]);
    expect(claims.map((c) => c.attributes["sluice.run.attempt"])).toEqual([1, 1, 2]);
    const steps = all.filter((s) => s.name === "step flaky");
    expect(steps.map((s) => s.attributes["sluice.outcome"])).toEqual(["error", undefined]);
    expect(steps.map((s) => s.attributes["sluice.step.attempt"])).toEqual([1, 1]);
    expect(exporter.getFinishedSpans().find((s) => s.name === "step flaky")!.status).toMatchObject({
      code: 2,
      message: "boom",
    });
    expect(parentOf(all, steps[0]!)).toBe(claims[1]);
    expect(parentOf(all, park)).toBe(claims[0]);
  });

  it("spans started in a step body hang under the step; a trace its sampler dropped records nothing and still reaches children", async () => {
    const seen: { runId: string; traceparent: string | undefined }[] = [];
    const leaf = defineWorkflow("sampled-leaf", {
      handler: async (_p, ctx) => {
        await ctx.run("look", () => {
          const sc = trace.getSpan(context.active())?.spanContext();
          seen.push({ runId: ctx.runId, traceparent: sc && `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags}` });
        });
        return "leaf";
      },
    });
    const top = defineWorkflow("sampled-top", {
      handler: async (_p, ctx) => {
        const id = await ctx.run("spawn", async () => {
          // Application code inside a step: its own span, and a run enqueued from there.
          trace.getTracer("app").startSpan("app work").end();
          return (await leaf.start(null)).id;
        });
        return id;
      },
    });
    const engine = createEngine({
      database: join(tempDir(), "s.db"),
      workflows: [top, leaf],
      scheduler: false,
      worker: { pollMs: 20 },
    });
    engines.push(engine);
    await engine.start();
    const leafOf = async (top: { result(o: { timeoutMs: number }): Promise<unknown> }) => {
      const leafId = (await top.result({ timeoutMs: 10_000 })) as string;
      await engine.handle(leafId).result({ timeoutMs: 10_000 });
      return leafId;
    };

    // Recorded: the application's span and the leaf's enqueue are children of the step span.
    await leafOf(await engine.enqueueRun(top, null, { trace: { traceparent: TP } }));
    const all = spans();
    const spawn = one(all, "step spawn");
    expect(parentOf(all, one(all, "app work"))).toBe(spawn);
    expect(parentOf(all, one(all, "enqueue sampled-leaf"))).toBe(spawn);
    expect(ancestry(all, one(all, "step look"))).toEqual([
      "run sampled-leaf",
      "enqueue sampled-leaf",
      "step spawn",
      "run sampled-top",
      "enqueue sampled-top",
    ]);
    exporter.reset();
    seen.length = 0;

    // The caller's trace is not sampled (flags 00): nothing is recorded, and the leaf, enqueued
    // from a step, still continues the caller's trace, unsampled.
    const unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
    const leafId = await leafOf(await engine.enqueueRun(top, null, { trace: { traceparent: unsampled } }));
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const stored = traceCarrierOf((await engine.store.getRun(leafId))!.options)?.traceparent;
    expect(stored).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
  });

  it("an expired lease and a cancel show in the run's trace and in the metrics", async () => {
    const again = defineWorkflow("again", { retries: 2, handler: async (_p, ctx) => ctx.run("s", () => 1) });
    const once = defineWorkflow("once", { retries: 0, handler: async () => 1 });
    const parked = defineWorkflow("parked", { handler: async (_p, ctx) => ctx.waitFor("never") });
    const database = join(tempDir(), "r.db");
    const producer = createEngine({ database, workflows: [again, once, parked], worker: false, scheduler: false });
    engines.push(producer);
    await producer.start();
    const trace = { traceparent: TP };
    const a = await producer.enqueueRun("again", {}, { trace });
    const o = await producer.enqueueRun("once", {}, { trace });
    // A worker that claims both and dies: its 50 ms leases run out.
    const dead = await producer.store.claim({ workerId: "dead", limit: 2, leaseMs: 50, workflows: ["again", "once"] });
    expect(dead.map((c) => c.run.id).sort()).toEqual([a.id, o.id].sort());
    const worker = createEngine({
      database,
      workflows: [again, once, parked],
      scheduler: false,
      worker: { leaseMs: 300, pollMs: 20 },
    });
    engines.push(worker);
    // What `sluice worker` prints about the runs it reclaimed (the CLI's printer on this engine).
    const printed: string[] = [];
    const unfollow = followRuns(worker, (t) => void printed.push(t));
    await worker.start();
    expect(await a.result({ timeoutMs: 10_000 })).toBe(1);
    await expect(o.result({ timeoutMs: 10_000 })).rejects.toThrow(/lease/);
    const p = await worker.enqueueRun("parked", {}, { trace });
    await eventually(async () => (await worker.store.getRun(p.id))?.status === "waiting");
    expect(await worker.cancel(p.id, "no longer needed")).toBe("cancelled");

    const all = spans().filter((s) => s.traceId === "4bf92f3577b34da6a3ce929d0e0e4736");
    const reclaimA = one(all, "reclaim again");
    expect(reclaimA.attributes).toMatchObject({
      "sluice.run.id": a.id,
      "sluice.run.attempt": 1,
      "sluice.outcome": "retry",
    });
    expect(reclaimA.parentSpanId).toBe(one(all, "enqueue again").spanId);
    // The next attempt runs in the same trace.
    expect(one(all, "run again").attributes).toMatchObject({ "sluice.run.attempt": 2, "sluice.outcome": "succeeded" });
    const reclaimO = one(all, "reclaim once");
    expect(reclaimO.attributes).toMatchObject({ "sluice.run.id": o.id, "sluice.outcome": "failed" });
    expect(exporter.getFinishedSpans().find((s) => s.name === "reclaim once")!.status.code).toBe(2);
    const cancel = one(all, "cancel parked");
    expect(cancel.attributes).toMatchObject({ "sluice.run.id": p.id, "sluice.outcome": "cancelled" });
    expect(parentOf(all, cancel)).toBe(one(all, "enqueue parked"));

    const counted = async (name: string) =>
      (await worker.metrics.registry.getMetricsAsJSON())
        .find((m) => m.name === name)!
        .values.map((v) => ({ ...v.labels, n: v.value }));
    expect(await counted("sluice_leases_reclaimed_total")).toEqual(
      expect.arrayContaining([
        { workflow: "again", outcome: "retry", cause: "expired", n: 1 },
        { workflow: "once", outcome: "failed", cause: "expired", n: 1 },
      ]),
    );
    expect(await counted("sluice_run_cancels_total")).toEqual([{ status: "cancelled", n: 1 }]);
    unfollow();
    const lines = printed.join("");
    expect(lines).toContain(`↻ again ${a.id} attempt 1 failed (attempt 1 stopped heartbeating`);
    expect(lines).toContain(`✗ once ${o.id} failed`);
  });

  it("a 3-level pipeline cascade is one trace down to the Bash script, which reads TRACEPARENT", async () => {
    const p = await startPipelines({
      "f/chain/a.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
  await wmill.writeS3File({ s3: 'chain/a.json' }, '1');
}
`,
      "f/chain/b.ts": `// pipeline
// on s3://chain/a.json
import * as wmill from 'windmill-client';
export async function main() {
  await wmill.writeS3File({ s3: 'chain/b.json' }, '2');
}
`,
      "f/chain/c.sh": `# pipeline
# on s3://chain/b.json
echo "tp=$TRACEPARENT"
`,
    });
    try {
      const start = await p.pipelines.runScript("f/chain/a");
      await start.result({ timeoutMs: 10_000 });
      await p.settle();
      const [c] = await p.runsOf("f/chain/c");
      expect(c?.status).toBe("succeeded");
      const all = spans();
      expect(new Set(all.map((s) => s.traceId)).size).toBe(1);
      const cRun = one(all, "run f/chain/c");
      expect(ancestry(all, cRun)).toEqual([
        "enqueue f/chain/c",
        "cascade f/chain/b.ts",
        "step pipeline:dispatch",
        "run f/chain/b",
        "enqueue f/chain/b",
        "cascade f/chain/a.ts",
        "step pipeline:dispatch",
        "run f/chain/a",
        "enqueue f/chain/a",
      ]);
      const decision = one(all, "dispatch f/chain/c.sh");
      expect(decision.attributes).toMatchObject({
        "sluice.pipeline.decision": "dispatched",
        "sluice.pipeline.depth": 2,
      });
      const script = one(all, "script f/chain/c.sh");
      expect(parentOf(all, script)).toBe(cRun);
      const logs = (await p.store.getLogs(c!.id)).map((l) => l.message).join("\n");
      expect(logs).toContain(`tp=00-${script.traceId}-${script.spanId}-01`);
    } finally {
      await p.close();
    }
  });
});
