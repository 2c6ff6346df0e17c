/**
 * Tracing overhead (issue 17): 200 runs × 5 checkpointed steps with tracing off (no
 * OpenTelemetry SDK: the engine's API calls are no-ops); on as an operator runs it (`otlp`:
 * what `--otel` registers, a batch processor and the OTLP/HTTP exporter, posting to a
 * receiver on 127.0.0.1 in the bench's parent process that reads each request and discards
 * it, as a collector would take it off the process's hands; `otlp-json`: the same in OTLP JSON, what
 * `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` gives, and the SDK's own encoding); on with an exporter that counts
 * the spans and drops them (`on`: the SDK's own cost, without the serialisation and HTTP of
 * an export); and with a trace that is not sampled (the SDK registered, nothing recorded). Each
 * mode runs in its own processes, as an application runs one way for its whole life (switching
 * the SDK on and off in one process measures the JIT re-optimising the code at each switch, not
 * tracing), alternating the modes to spread the machine's drift; each process warms up
 * for WARM_UP rounds and reports the median of its ROUNDS rounds. Besides wall time, each
 * round's CPU time (user + system of the process) is measured: on a machine shared with other
 * work, wall time swings by more than the overhead being measured, CPU time much less.
 *   npm run bench -- --tracing
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { promisify } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Figure } from "./report.js";

const RUNS = 200;
const STEPS = 5;
/** The target: tracing adds less than this to CPU and wall time. */
const TARGET_PERCENT = 10;
const WARM_UP = 3;
/** Measured rounds per process (TRACING_BENCH_ROUNDS overrides: more rounds let the JIT settle). */
const ROUNDS = Number(process.env.TRACING_BENCH_ROUNDS) || 12;
const PROCESSES_PER_MODE = 5;

/**
 * off: no SDK; otlp: the SDK as `--otel` registers it (batch processor, OTLP/HTTP exporter to a
 * loopback receiver; protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says otherwise), every span recorded
 * and exported; otlp-json: the same in OTLP JSON; on: the SDK registered, every span
 * recorded and handed to an exporter that drops it; unsampled: the SDK registered (its context
 * manager active) with a sampler that records nothing, which separates the cost of recording
 * spans from that of propagating context.
 */
type Mode = "off" | "otlp" | "otlp-json" | "on" | "unsampled";
const MODES: readonly Mode[] = ["off", "otlp", "otlp-json", "on", "unsampled"];
/** Modes that export as `--otel` does: in the protocol the environment asks for (protobuf by default), and in OTLP JSON. */
const exporting = (mode: Mode) => mode === "otlp" || mode === "otlp-json";

interface ChildResult {
  mode: Mode;
  /** Median wall time of a round (ms). */
  medianMs: number;
  /** Median CPU time (user + system) of a round (ms). */
  medianCpuMs: number;
  /** Least CPU time of a round (ms): the least disturbed by other processes on a shared machine. */
  minCpuMs: number;
  /** Spans exported per round (0 when off). */
  spansPerRound: number;
  /** Exports that failed (otlp: the receiver refused or was unreachable; must be 0). */
  failedExports: number;
}

/** One process: an engine on a fresh SQLite file, WARM_UP rounds, then ROUNDS measured rounds. */
async function child(mode: Mode, dir: string, otlpUrl: string | undefined): Promise<ChildResult> {
  let exported: (() => number) | null = null;
  let failedExports = 0;
  let flush: () => Promise<void> = async () => {};
  if (mode !== "off") {
    const { NodeTracerProvider, BatchSpanProcessor, AlwaysOffSampler } = await import("@opentelemetry/sdk-trace-node");
    type Spans = Parameters<InstanceType<typeof BatchSpanProcessor>["onEnd"]>[0][];
    type Done = (result: { code: number; error?: Error }) => void;
    // What `--otel` exports through (`cli/otel.ts`: the SDK's OTLP/HTTP transport, Sluice's protobuf
    // serializer, or the SDK's JSON one under OTEL_EXPORTER_OTLP_PROTOCOL=http/json); the counting
    // wrapper adds a counter only.
    const otlp = exporting(mode) ? await otelExporter(otlpUrl!, mode === "otlp-json" ? "http/json" : undefined) : null;
    let count = 0;
    const exporter = {
      export(spans: Spans, done: Done) {
        count += spans.length;
        if (!otlp) return done({ code: 0 });
        otlp.export(spans, (result) => {
          if (result.code !== 0) failedExports++;
          done(result);
        });
      },
      shutdown: async () => otlp?.shutdown(),
    };
    const provider = new NodeTracerProvider({
      // As `cli/otel.ts` for --otel (the flush at the end of each round exports the rest).
      spanProcessors: [
        new BatchSpanProcessor(
          exporter,
          exporting(mode) ? (await import("../dist/cli/otlp/batch-options.js")).batchOptions(process.env) : {},
        ),
      ],
      ...(exporting(mode) && {
        idGenerator: new (await import("../dist/cli/otlp/id-generator.js")).PooledIdGenerator(),
      }),
      ...(mode === "unsampled" && { sampler: new AlwaysOffSampler() }),
    });
    // otlp as --otel registers it (Sluice's context manager, one AsyncLocalStorage); on and unsampled
    // as an application registering the SDK gets it (the SDK's own, a second one), unless
    // TRACING_BENCH_CONTEXT (sluice | sdk) says otherwise: a probe of the context manager alone.
    const manager = process.env.TRACING_BENCH_CONTEXT ?? (exporting(mode) ? "sluice" : "sdk");
    if (manager === "sluice") {
      const { SluiceContextManager } = await import("../dist/worker/otel-context.js");
      provider.register({ contextManager: new SluiceContextManager() });
    } else provider.register();
    exported = () => {
      const n = count;
      count = 0;
      return n;
    };
    flush = () => provider.forceFlush();
  }
  const { createEngine, defineWorkflow } = await import("../dist/index.js");
  const wf = defineWorkflow("bench-traced-five-steps", {
    handler: async (_p, ctx) => {
      for (let i = 0; i < STEPS; i++) await ctx.run(`step-${i}`, () => i);
      return STEPS;
    },
  });
  const engine = createEngine({
    database: join(dir, `tracing-${mode}-${process.pid}.db`),
    workflows: [wf],
    scheduler: false,
  });
  await engine.start();
  const round = async () => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const handles = await engine.enqueueMany(
      wf,
      Array.from({ length: RUNS }, (_, i) => ({ i })),
    );
    await Promise.all(handles.map((h) => h.result()));
    const ms = performance.now() - start;
    await flush();
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000, spans: exported?.() ?? 0 };
  };
  for (let i = 0; i < WARM_UP; i++) await round();
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
  await engine.stop();
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    mode,
    medianMs: mid(rounds.map((r) => r.ms)),
    medianCpuMs: mid(rounds.map((r) => r.cpuMs)),
    minCpuMs: Math.min(...rounds.map((r) => r.cpuMs)),
    spansPerRound: rounds[0]!.spans,
    failedExports,
  };
}

/** The span exporter `--otel` registers (`cli/otlp/trace-exporter.ts`), in `protocol`, else the one the environment asks for. */
async function otelExporter(url: string, protocol?: "http/json") {
  const [{ otlpTraceExporter }, { otlpProtocol }] = await Promise.all([
    import("../dist/cli/otlp/trace-exporter.js"),
    import("../dist/cli/otlp/protocol.js"),
  ]);
  return otlpTraceExporter(url, protocol ?? otlpProtocol(process.env));
}

/** CPU time per recorded span with no engine around it, by exporter (µs): the SDK's floor. */
interface FloorResult {
  dropUs: number;
  /** `--otel`'s exporter (protobuf by default). */
  otlpUs: number;
  /** The SDK's own OTLP/HTTP JSON exporter (`@opentelemetry/exporter-trace-otlp-http`, what `--otel` used before). */
  sdkJsonUs: number;
  /** Serialising alone, per span of a 512-span batch: the SDK's JSON, the SDK's protobuf, Sluice's protobuf. */
  serialize: { sdkJson: number; sdkProtobuf: number; sluice: number };
}

/**
 * The SDK's floor: a round's spans made in a loop, the shapes the engine makes (one claim span
 * with seven attributes and five child step spans with two, per run; `startSpan` under an
 * explicit parent, `end`), through a batch processor into the dropping exporter and into the
 * OTLP/HTTP exporter (flushed at the end of each round), ROUNDS rounds after WARM_UP, median CPU
 * time per span. No context manager, no `context.with`: what recording and exporting alone cost.
 */
async function floor(otlpUrl: string): Promise<FloorResult> {
  const { ROOT_CONTEXT, SpanKind, trace } = await import("@opentelemetry/api");
  const { NodeTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-node");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  const drop = {
    export: (_s: unknown[], done: (r: { code: number }) => void) => done({ code: 0 }),
    shutdown: async () => {},
  };
  type Tracer = import("@opentelemetry/api").Tracer;
  /** A round's spans, the engine's shapes. */
  const makeSpans = (tracer: Tracer) => {
    for (let r = 0; r < RUNS; r++) {
      const claim = tracer.startSpan("run bench", {
        kind: SpanKind.CONSUMER,
        attributes: {
          "sluice.run.id": `01a2b3c4-0000-7000-8000-${String(r).padStart(12, "0")}`,
          "sluice.workflow": "bench",
          "sluice.run.attempt": 1,
          "sluice.run.claim": 1,
          "sluice.queue": "default",
          "sluice.worker.id": "w",
        },
      });
      const parent = trace.setSpan(ROOT_CONTEXT, claim);
      for (let i = 0; i < STEPS; i++)
        tracer
          .startSpan(
            `step step-${i}`,
            { attributes: { "sluice.step.key": `step-${i}`, "sluice.step.attempt": 1 } },
            parent,
          )
          .end();
      claim.setAttribute("sluice.outcome", "succeeded");
      claim.end();
    }
  };
  const perSpan = async (exporter: ConstructorParameters<typeof BatchSpanProcessor>[0]) => {
    const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
    const tracer = provider.getTracer("sluice");
    const round = async () => {
      const cpu = process.cpuUsage();
      makeSpans(tracer);
      await provider.forceFlush();
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / (RUNS * (STEPS + 1));
    };
    for (let i = 0; i < WARM_UP; i++) await round();
    const xs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) xs.push(await round());
    await provider.shutdown();
    return median(xs);
  };
  return {
    dropUs: await perSpan(drop),
    otlpUs: await perSpan(await otelExporter(otlpUrl)),
    sdkJsonUs: await perSpan(new OTLPTraceExporter({ url: otlpUrl })),
    serialize: await serializers(makeSpans),
  };
}

/** CPU per span of serialising one 512-span batch of the engine's shapes (the batch processor's batch), median of ROUNDS × 20 batches. */
async function serializers(
  makeSpans: (tracer: import("@opentelemetry/api").Tracer) => void,
): Promise<FloorResult["serialize"]> {
  const { NodeTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
    await import("@opentelemetry/sdk-trace-node");
  const { JsonTraceSerializer, ProtobufTraceSerializer } = await import("@opentelemetry/otlp-transformer");
  const { protobufTraceSerializer } = await import("../dist/cli/otlp/trace-exporter.js");
  const memory = new InMemorySpanExporter();
  makeSpans(new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("sluice"));
  const batch = memory.getFinishedSpans().slice(0, 512);
  const sluice = protobufTraceSerializer();
  const time = (serialize: (spans: typeof batch) => unknown) => {
    const xs: number[] = [];
    for (let i = 0; i < WARM_UP + ROUNDS; i++) {
      const cpu = process.cpuUsage();
      for (let j = 0; j < 20; j++) serialize(batch);
      const used = process.cpuUsage(cpu);
      if (i >= WARM_UP) xs.push((used.user + used.system) / (20 * batch.length));
    }
    return median(xs);
  };
  return {
    sdkJson: time((b) => JsonTraceSerializer.serializeRequest(b)),
    sdkProtobuf: time((b) => ProtobufTraceSerializer.serializeRequest(b)),
    sluice: time((b) => sluice.serializeRequest(b)),
  };
}

/** The loopback OTLP/HTTP receiver of the otlp mode: reads each export whole and discards it. */
async function startSink(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      requests++;
      // An empty ExportTraceServiceResponse in the request's encoding.
      const json = req.headers["content-type"] === "application/json";
      res
        .writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" })
        .end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The protocol --otel's exporter uses in this run (`OTEL_EXPORTER_OTLP_PROTOCOL`, default http/protobuf). */
function otlpProtocolName(): string {
  return process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || process.env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf";
}

/** The median of numbers (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const xs = [...values].sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Met when every off/on pair is under the 10 % target, not met when none is, else undecided. */
function verdict(pairs: number[]): boolean | undefined {
  if (pairs.every((p) => p < TARGET_PERCENT)) return true;
  if (pairs.every((p) => p >= TARGET_PERCENT)) return false;
  return undefined;
}

/** `(on - off) / off` in percent. */
const overhead = (on: number, off: number) => ((on - off) / off) * 100;

/**
 * Runs PROCESSES_PER_MODE processes of each mode, alternating the modes so that the
 * machine's drift touches each mode alike, and compares the medians of their medians. CPU time
 * is reported per durable step (a round's CPU time over its RUNS × STEPS steps, the run's
 * enqueue, claim and completion included).
 */
export async function tracingFigures(dir: string): Promise<Figure[]> {
  const script = fileURLToPath(import.meta.url);
  const results: ChildResult[] = [];
  const sink = await startSink();
  let floor: FloorResult = {
    dropUs: NaN,
    otlpUs: NaN,
    sdkJsonUs: NaN,
    serialize: { sdkJson: NaN, sdkProtobuf: NaN, sluice: NaN },
  };
  let engineRequests = 0;
  const loadBefore = loadavg()[0]!;
  try {
    for (let i = 0; i < PROCESSES_PER_MODE; i++)
      for (const mode of MODES) {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [script, "--tracing-child", mode, dir, sink.url],
          {
            encoding: "utf8",
          },
        );
        const result = JSON.parse(stdout.trim().split("\n").pop()!) as ChildResult;
        if (result.failedExports > 0) throw new Error(`${result.failedExports} OTLP exports to ${sink.url} failed`);
        results.push(result);
      }
    engineRequests = sink.requests();
    const floors: FloorResult[] = [];
    for (let i = 0; i < PROCESSES_PER_MODE; i++) {
      const { stdout } = await promisify(execFile)(process.execPath, [script, "--tracing-floor", sink.url], {
        encoding: "utf8",
      });
      floors.push(JSON.parse(stdout.trim().split("\n").pop()!) as FloorResult);
    }
    floor = {
      dropUs: median(floors.map((f) => f.dropUs)),
      otlpUs: median(floors.map((f) => f.otlpUs)),
      sdkJsonUs: median(floors.map((f) => f.sdkJsonUs)),
      serialize: {
        sdkJson: median(floors.map((f) => f.serialize.sdkJson)),
        sdkProtobuf: median(floors.map((f) => f.serialize.sdkProtobuf)),
        sluice: median(floors.map((f) => f.serialize.sluice)),
      },
    };
  } finally {
    await sink.close();
  }
  const loadAfter = loadavg()[0]!;
  const of = (mode: Mode, pick: (r: ChildResult) => number) => results.filter((r) => r.mode === mode).map(pick);
  const steps = RUNS * STEPS;
  const perStepUs = (ms: number) => (ms * 1000) / steps;
  const cpu = (mode: Mode) => median(of(mode, (r) => r.medianCpuMs));
  const wall = (mode: Mode) => median(of(mode, (r) => r.medianMs));
  const least = (mode: Mode) => median(of(mode, (r) => r.minCpuMs));
  // Each traced process beside the off process started just before it: how far one pair can stray.
  const pairsOf = (mode: Mode, pick: (r: ChildResult) => number) => {
    const offs = of("off", pick);
    return of(mode, pick).map((v, i) => overhead(v, offs[i]!));
  };
  const spans = results.find((r) => r.mode === "otlp")!.spansPerRound;
  /** `mode` against `base`, each process against the one of the same cycle (CPU), as "min … max %, median". */
  const pairsBetween = (mode: Mode, base: Mode) => {
    const bases = of(base, (r) => r.medianCpuMs);
    const xs = of(mode, (r) => r.medianCpuMs).map((v, i) => overhead(v, bases[i]!));
    return `${Math.round(Math.min(...xs))} … ${Math.round(Math.max(...xs))} %, median ${median(xs).toFixed(1)} %`;
  };
  const each = (pick: (r: ChildResult) => number) => results.map((r) => `${r.mode} ${Math.round(pick(r))}`).join(", ");
  const how = `medians of ${PROCESSES_PER_MODE} processes per mode × ${ROUNDS} rounds, modes alternated; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} cores`;
  /** The overhead of `mode` against off, with a verdict only when every off/traced pair agrees with it. */
  const overheadFigure = (name: string, mode: Mode, pick: (r: ChildResult) => number, extra: string): Figure => {
    const pairs = pairsOf(mode, pick);
    const v = verdict(pairs);
    return {
      name,
      value: overhead(median(of(mode, pick)), median(of("off", pick))),
      unit: "%",
      target: `< ${TARGET_PERCENT} %`,
      ...(v !== undefined && { met: v }),
      note: `process pairs ${Math.round(Math.min(...pairs))} to ${Math.round(Math.max(...pairs))} %${v === undefined ? " (TOO NOISY TO DECIDE: pairs on both sides of the target; rerun on an idle machine)" : ""}; ${extra}`,
    };
  };
  return [
    {
      name: "tracing off (API only, no SDK): CPU time per durable step",
      value: perStepUs(cpu("off")),
      unit: "µs",
      note: `${cpu("off").toFixed(1)} ms per round of ${RUNS} runs × ${STEPS} steps`,
    },
    {
      name: `tracing on as --otel runs it (SDK, batch processor, OTLP/HTTP ${otlpProtocolName()} to a loopback receiver): CPU time per durable step`,
      value: perStepUs(cpu("otlp")),
      unit: "µs",
      note: `${cpu("otlp").toFixed(1)} ms per round; ${spans} spans per round (${Math.round(spans / RUNS)} per run), ${engineRequests} export requests received from the otlp processes`,
    },
    {
      name: "tracing on as --otel runs it under OTEL_EXPORTER_OTLP_PROTOCOL=http/json (the SDK's JSON serializer): CPU time per durable step",
      value: perStepUs(cpu("otlp-json")),
      unit: "µs",
      note: `${cpu("otlp-json").toFixed(1)} ms per round`,
    },
    {
      name: "tracing on, exporter that drops the spans (the SDK's own cost): CPU time per durable step",
      value: perStepUs(cpu("on")),
      unit: "µs",
      note: `${cpu("on").toFixed(1)} ms per round`,
    },
    {
      name: "trace not sampled (SDK registered, sampler records nothing): CPU time per durable step",
      value: perStepUs(cpu("unsampled")),
      unit: "µs",
      note: `${cpu("unsampled").toFixed(1)} ms per round`,
    },
    overheadFigure(
      "tracing overhead, CPU time, as --otel exports (every span recorded, serialised, posted)",
      "otlp",
      (r) => r.medianCpuMs,
      `${how} (CPU ms per process: ${each((r) => r.medianCpuMs)})`,
    ),
    overheadFigure(
      "tracing overhead, CPU time, as --otel exports in OTLP JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)",
      "otlp-json",
      (r) => r.medianCpuMs,
      `otlp (${otlpProtocolName()}) against otlp-json, process by process: ${pairsBetween("otlp", "otlp-json")}`,
    ),
    overheadFigure(
      "tracing overhead, CPU time, SDK only (every span recorded, the exporter drops them)",
      "on",
      (r) => r.medianCpuMs,
      "the serialisation and HTTP of an export left out",
    ),
    {
      name: "tracing overhead, CPU time of each process's least disturbed round (otlp / SDK only)",
      value: overhead(least("otlp"), least("off")),
      unit: "%",
      note: `off ${least("off").toFixed(1)} ms, otlp ${least("otlp").toFixed(1)} ms, SDK only ${least("on").toFixed(1)} ms (${overhead(least("on"), least("off")).toFixed(1)} %): median over processes of each one's fastest round`,
    },
    {
      name: "the SDK's floor: CPU time per recorded span in a loop, exported as --otel exports it",
      value: floor.otlpUs,
      unit: "µs",
      note: `${floor.dropUs.toFixed(1)} µs dropped, ${floor.otlpUs.toFixed(1)} µs exported by --otel's exporter (${otlpProtocolName()}), ${floor.sdkJsonUs.toFixed(1)} µs by the SDK's OTLP/HTTP JSON exporter (median of ${PROCESSES_PER_MODE} processes); ${spans} spans at that cost are ${overhead(cpu("off") + (spans * floor.otlpUs) / 1000, cpu("off")).toFixed(1)} % of the off round (${(((spans * floor.dropUs) / 1000 / cpu("off")) * 100).toFixed(1)} % dropped): the least any glue could add`,
    },
    {
      name: "OTLP serialisation alone: CPU time per span of a 512-span batch, Sluice's protobuf serializer",
      value: floor.serialize.sluice,
      unit: "µs",
      note: `the SDK's ProtobufTraceSerializer ${floor.serialize.sdkProtobuf.toFixed(2)} µs, its JSON serializer ${floor.serialize.sdkJson.toFixed(2)} µs (same bytes as the SDK's protobuf; median of ${PROCESSES_PER_MODE} processes)`,
    },
    {
      name: "overhead of a trace not sampled, CPU time",
      value: overhead(cpu("unsampled"), cpu("off")),
      unit: "%",
      note: "context propagation only: no step spans, the claim's span not recorded",
    },
    overheadFigure(
      "tracing overhead, wall time, as --otel exports",
      "otlp",
      (r) => r.medianMs,
      `off ${wall("off").toFixed(0)} ms, otlp ${wall("otlp").toFixed(0)} ms per round (wall ms per process: ${each((r) => r.medianMs)})`,
    ),
  ];
}

if (process.argv[2] === "--tracing-floor") {
  console.log(JSON.stringify(await floor(process.argv[3]!)));
  process.exit(0);
}

if (process.argv[2] === "--tracing-child") {
  const arg = process.argv[3];
  const mode: Mode = MODES.find((m) => m === arg) ?? "off";
  const result = await child(mode, process.argv[4]!, process.argv[5]);
  console.log(JSON.stringify(result));
  process.exit(0);
}
