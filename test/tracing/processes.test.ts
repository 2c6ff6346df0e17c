/**
 * Traces exported by real `sluice` processes (`--otel` and the standard OTLP variables) to an
 * OTLP/HTTP receiver on 127.0.0.1: a 100-task fan-out split over two `sluice worker` processes
 * is one trace with every parent present, and `sluice dev --otel` exports the spans of a run
 * started over HTTP, with trace ids in its `--log-format json` lines, in OTLP protobuf (the
 * default, decoded by the receiver's own decoder) and in OTLP JSON when the standard variable asks.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { traceCarrierOf } from "../../src/core/trace-context.js";
import { Project } from "../../src/loader/project.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { ancestry, one, parentOf } from "./spans.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TP = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

let receiver: OtlpReceiver | null = null;
let engine: Engine | null = null;
afterEach(async () => {
  await engine?.stop({ drainMs: 0 });
  engine = null;
  await receiver?.close();
  receiver = null;
});

/** JSON lines of a process's standard output. */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("traces across processes", () => {
  it("a 100-task fan-out over two worker processes is one trace, every span's parent exported", async () => {
    receiver = await startOtlpReceiver();
    const root = makeProject({
      "f/fan.ts": `import { workflow, task } from "windmill-client";
        async function square(n: number) {
          await new Promise((r) => setTimeout(r, 100));
          console.log("square", n);
          return n * n;
        }
        export const main = workflow(async (n: number) => {
          const xs = await Promise.all(Array.from({ length: n }, (_, i) => task(square)(i)));
          return xs.reduce((a, b) => a + b, 0);
        });`,
    });
    const common = ["worker", "--concurrency", "10", "--log-format", "json"];
    // One worker gets --otel, the other the standard variable: both paths export.
    const a = spawnSluice([...common, "--otel", receiver.url], root);
    const b = spawnSluice(common, root, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "worker-b" });
    await a.waitFor(/ready: 1 workflow/, 30_000);
    await b.waitFor(/ready: 1 workflow/, 30_000);
    expect(a.output()).toContain(`traces: exporting to ${receiver.url}/v1/traces (OTLP/HTTP, http/protobuf)`);

    // The caller's trace context (an HTTP traceparent, say): this process registers no SDK.
    engine = createEngine({ database: join(root, ".sluice", "sluice.db"), worker: false, scheduler: false });
    await engine.start();
    expect((await new Project(root, engine).loadAll()).errors).toEqual([]);
    const run = await engine.enqueueRun("f/fan", { n: 100 }, { trace: { traceparent: TP } });
    expect(await run.result({ timeoutMs: 60_000 })).toBe(328_350);

    a.proc.kill("SIGTERM");
    b.proc.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    expect(receiver.rejected).toEqual([]);
    const spans: ReceivedSpan[] = receiver.spans;

    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([TRACE_ID]));
    const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) expect(s.parentSpanId === CALLER_SPAN || ids.has(s.parentSpanId!), s.name).toBe(true);

    const squares = spans.filter(
      (s) => s.name === "run f/fan.square" && s.attributes["sluice.outcome"] === "succeeded",
    );
    expect(new Set(squares.map((s) => s.attributes["sluice.run.id"])).size).toBe(100);
    // Both processes ran some of them, each exporting its own.
    const byProcess = new Map<string, number>();
    for (const s of squares) byProcess.set(s.instance, (byProcess.get(s.instance) ?? 0) + 1);
    expect([...byProcess.keys()].sort()).toEqual([String(a.pid), String(b.pid)].sort());
    expect(new Set(squares.map((s) => s.service))).toEqual(new Set(["sluice-worker", "worker-b"]));

    // Each child's claim hangs under the `child` span its parent's claim made, whichever process ran it.
    const parentClaims = spans.filter((s) => s.name === "run f/fan");
    expect(parentClaims.map((s) => s.attributes["sluice.outcome"]).sort()).toEqual(["succeeded", "suspended"]);
    for (const c of parentClaims) expect(c.parentSpanId).toBe(CALLER_SPAN);
    const suspended = parentClaims.find((s) => s.attributes["sluice.outcome"] === "suspended")!;
    let crossProcess = 0;
    for (const sq of squares) {
      const spawn = parentOf(spans, sq);
      expect(spawn.name).toBe("child f/fan.square");
      expect(spawn.attributes["sluice.child.run_id"]).toBe(sq.attributes["sluice.run.id"]);
      expect(parentOf(spans, spawn)).toBe(suspended);
      if ((spawn as ReceivedSpan).instance !== sq.instance) crossProcess++;
    }
    expect(crossProcess).toBeGreaterThan(0);
    // Both processes posted OTLP protobuf, the specification's default encoding.
    expect(new Set(receiver.contentTypes)).toEqual(new Set(["application/x-protobuf"]));

    // The workers' JSON log lines carry the trace and span of the claim that printed them.
    const logs = [...jsonLines(a.stdout()), ...jsonLines(b.stdout())].filter((l) => l.event === "log");
    expect(logs).toHaveLength(100);
    for (const l of logs) {
      expect(l.trace_id).toBe(TRACE_ID);
      const claim = spans.find((s) => s.spanId === l.span_id);
      expect(claim?.attributes["sluice.run.id"]).toBe(l.runId);
    }
  }, 120_000);

  it.each([
    ["http/protobuf (the default)", {}, "application/x-protobuf"],
    ["http/json (OTEL_EXPORTER_OTLP_PROTOCOL)", { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, "application/json"],
  ])(
    "sluice dev --otel exports the spans of a run started over HTTP, one trace from enqueue to steps: %s",
    async (_name, env, contentType) => {
      receiver = await startOtlpReceiver();
      const root = makeProject({
        "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("hello", {
  handler: async (p: { name: string }, ctx) => {
    const greeting = await ctx.run("greet", () => { console.log("greeting", p.name); return "hi " + p.name; });
    await ctx.sleep("pause", 50);
    return greeting;
  },
});`,
      });
      const dev = spawnSluice(
        ["dev", ".", "--port", "0", "--no-watch", "--log-format", "json", "--otel", receiver.url],
        root,
        env,
      );
      await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
      // The encoding is said at start, as the content type of the exports below is.
      expect(dev.output()).toContain(
        contentType === "application/json" ? "(OTLP/HTTP, http/json)" : "(OTLP/HTTP, http/protobuf)",
      );
      const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
      const created = (await (
        await fetch(`${url}/api/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ workflow: "hello", payload: { name: "otel" } }),
        })
      ).json()) as { run: { id: string } };
      const id = created.run.id;
      await eventually(async () => {
        const d = (await (await fetch(`${url}/api/runs/${id}`)).json()) as { run: { status: string } };
        return d.run.status === "succeeded" ? d : null;
      }, 20_000);
      // Spans are batched: they arrive within a second or two, or at the latest on shutdown.
      await eventually(() => receiver!.spans.some((s) => s.name === "run hello"), 10_000);
      dev.proc.kill("SIGTERM");
      expect(await dev.exited).toBe(0);

      const spans = receiver.spans;
      expect(receiver.rejected).toEqual([]);
      expect(new Set(receiver.contentTypes)).toEqual(new Set([contentType]));
      expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["sluice-dev"]));
      const claim = one(spans, "run hello");
      expect(claim.attributes).toMatchObject({
        "sluice.run.id": id,
        "sluice.workflow": "hello",
        "sluice.outcome": "succeeded",
      });
      expect(ancestry(spans, claim)).toEqual(["enqueue hello"]);
      const greet = one(spans, "step greet");
      expect(parentOf(spans, greet)).toBe(claim);
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      const log = jsonLines(dev.stdout()).find((l) => l.event === "log" && l.runId === id);
      expect(log).toMatchObject({
        msg: "greeting otel",
        stepKey: "greet",
        trace_id: claim.traceId,
        span_id: greet.spanId,
      });
    },
    60_000,
  );

  it("refuses an --otel value that is not an http(s) URL, saying what to give, before touching the project", async () => {
    const root = makeProject({});
    const worker = spawnSluice(["worker", "--otel", "localhost:4318"], root);
    expect(await worker.exited).toBe(1);
    expect(worker.stderr()).toContain(
      '--otel "localhost:4318" is not an OTLP/HTTP endpoint: give an http(s) URL such as http://127.0.0.1:4318',
    );
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(false);
    const grpc = spawnSluice(["worker", "--otel", "http://127.0.0.1:4318"], root, {
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    });
    expect(await grpc.exited).toBe(1);
    expect(grpc.stderr()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported');
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(false);
  });

  it("sluice enqueue started inside a trace (TRACEPARENT) stores that context with the run", async () => {
    const root = makeProject({
      "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("hello", { handler: async () => "hi" });`,
    });
    const enq = spawnSluice(["enqueue", "hello", "{}", "--json"], root, { TRACEPARENT: TP, TRACESTATE: "ci=1" });
    expect(await enq.exited).toBe(0);
    const { id } = JSON.parse(enq.stdout()) as { id: string };
    engine = createEngine({ database: join(root, ".sluice", "sluice.db"), worker: false, scheduler: false });
    const run = await engine.getRun(id);
    expect(traceCarrierOf(run!.options)).toEqual({ traceparent: TP, tracestate: "ci=1" });
  });
});
