/**
 * Tracing overhead (issue 17): 200 runs × 5 checkpointed steps with tracing off (no
 * OpenTelemetry SDK: the engine's API calls are no-ops) and on (the trace SDK registered
 * with a batch processor and an exporter that counts the spans it is handed and drops them,
 * so every span is really recorded and exported, without a network or a growing buffer in
 * the way), and with a trace that is not sampled (the SDK registered, nothing recorded). Each
 * mode runs in its own processes, as an application runs one way for its whole life (switching
 * the SDK on and off in one process measures the JIT re-optimising the code at each switch, not
 * tracing), alternating off/on/unsampled to spread the machine's drift; each process warms up
 * for WARM_UP rounds and reports the median of its ROUNDS rounds. Besides wall time, each
 * round's CPU time (user + system of the process) is measured: on a machine shared with other
 * work, wall time swings by more than the overhead being measured, CPU time much less.
 *   npm run bench -- --tracing
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Figure } from "./report.js";

const RUNS = 200;
const STEPS = 5;
/** The target: tracing adds less than this to CPU and wall time. */
const TARGET_PERCENT = 10;
const WARM_UP = 3;
const ROUNDS = 12;
const PROCESSES_PER_MODE = 5;

/**
 * off: no SDK; on: the SDK registered, every span recorded and exported; unsampled: the SDK
 * registered (its context manager active) with a sampler that records nothing, which
 * separates the cost of recording spans from that of propagating context.
 */
type Mode = "off" | "on" | "unsampled";

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
}

/** One process: an engine on a fresh SQLite file, WARM_UP rounds, then ROUNDS measured rounds. */
async function child(mode: Mode, dir: string): Promise<ChildResult> {
  let exported: (() => number) | null = null;
  let flush: () => Promise<void> = async () => {};
  if (mode !== "off") {
    const { NodeTracerProvider, BatchSpanProcessor, AlwaysOffSampler } = await import("@opentelemetry/sdk-trace-node");
    let count = 0;
    const exporter = {
      export(spans: unknown[], done: (result: { code: number }) => void) {
        count += spans.length;
        done({ code: 0 });
      },
      shutdown: async () => {},
    };
    const provider = new NodeTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter)],
      ...(mode === "unsampled" && { sampler: new AlwaysOffSampler() }),
    });
    provider.register();
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
  };
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
 * Runs PROCESSES_PER_MODE processes of each mode, alternating off/on/unsampled so that the
 * machine's drift touches each mode alike, and compares the medians of their medians. CPU time
 * is reported per durable step (a round's CPU time over its RUNS × STEPS steps, the run's
 * enqueue, claim and completion included).
 */
export function tracingFigures(dir: string): Figure[] {
  const script = fileURLToPath(import.meta.url);
  const results: ChildResult[] = [];
  const loadBefore = loadavg()[0]!;
  for (let i = 0; i < PROCESSES_PER_MODE; i++)
    for (const mode of ["off", "on", "unsampled"] as const) {
      const out = execFileSync(process.execPath, [script, "--tracing-child", mode, dir], { encoding: "utf8" });
      results.push(JSON.parse(out.trim().split("\n").pop()!) as ChildResult);
    }
  const loadAfter = loadavg()[0]!;
  const of = (mode: Mode, pick: (r: ChildResult) => number) => results.filter((r) => r.mode === mode).map(pick);
  const steps = RUNS * STEPS;
  const perStepUs = (ms: number) => (ms * 1000) / steps;
  const cpu = {
    off: median(of("off", (r) => r.medianCpuMs)),
    on: median(of("on", (r) => r.medianCpuMs)),
    unsampled: median(of("unsampled", (r) => r.medianCpuMs)),
  };
  const wall = { off: median(of("off", (r) => r.medianMs)), on: median(of("on", (r) => r.medianMs)) };
  const least = { off: median(of("off", (r) => r.minCpuMs)), on: median(of("on", (r) => r.minCpuMs)) };
  const cpuOverhead = overhead(cpu.on, cpu.off);
  const wallOverhead = overhead(wall.on, wall.off);
  // Each on process beside the off process started just before it: how far one pair can stray.
  const offs = of("off", (r) => r.medianCpuMs);
  const pairs = of("on", (r) => r.medianCpuMs).map((on, i) => overhead(on, offs[i]!));
  // A verdict only when every pair agrees with it: pairs on both sides of the target cannot tell.
  const noisy = verdict(pairs) === undefined;
  const offWalls = of("off", (r) => r.medianMs);
  const wallPairs = of("on", (r) => r.medianMs).map((on, i) => overhead(on, offWalls[i]!));
  const wallNoisy = verdict(wallPairs) === undefined;
  const spans = results.find((r) => r.mode === "on")!.spansPerRound;
  const each = (pick: (r: ChildResult) => number) => results.map((r) => `${r.mode} ${Math.round(pick(r))}`).join(", ");
  const how = `medians of ${PROCESSES_PER_MODE} processes per mode × ${ROUNDS} rounds; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} cores`;
  return [
    {
      name: "tracing off (API only, no SDK): CPU time per durable step",
      value: perStepUs(cpu.off),
      unit: "µs",
      note: `${cpu.off.toFixed(1)} ms per round of ${RUNS} runs × ${STEPS} steps`,
    },
    {
      name: "tracing on (SDK, batch processor, every span recorded): CPU time per durable step",
      value: perStepUs(cpu.on),
      unit: "µs",
      note: `${cpu.on.toFixed(1)} ms per round; ${spans} spans per round (${Math.round(spans / RUNS)} per run)`,
    },
    {
      name: "trace not sampled (SDK registered, sampler records nothing): CPU time per durable step",
      value: perStepUs(cpu.unsampled),
      unit: "µs",
      note: `${cpu.unsampled.toFixed(1)} ms per round`,
    },
    {
      name: "tracing overhead, CPU time (every span recorded)",
      value: cpuOverhead,
      unit: "%",
      target: "< 10 %",
      ...(!noisy && { met: verdict(pairs) }),
      note: `${how}; process pairs ${Math.round(Math.min(...pairs))} to ${Math.round(Math.max(...pairs))} %${noisy ? " (TOO NOISY TO DECIDE: pairs on both sides of the target; rerun on an idle machine)" : ""} (CPU ms per process: ${each((r) => r.medianCpuMs)})`,
    },
    {
      name: "tracing overhead, CPU time of each process's least disturbed round",
      value: overhead(least.on, least.off),
      unit: "%",
      note: `off ${least.off.toFixed(1)} ms, on ${least.on.toFixed(1)} ms (median over processes of each one's fastest round)`,
    },
    {
      name: "overhead of a trace not sampled, CPU time",
      value: overhead(cpu.unsampled, cpu.off),
      unit: "%",
      note: "context propagation only: no step spans, the claim's span not recorded",
    },
    {
      name: "tracing overhead, wall time (every span recorded)",
      value: wallOverhead,
      unit: "%",
      target: "< 10 %",
      ...(!wallNoisy && { met: verdict(wallPairs) }),
      note: `off ${wall.off.toFixed(0)} ms, on ${wall.on.toFixed(0)} ms per round; process pairs ${Math.round(Math.min(...wallPairs))} to ${Math.round(Math.max(...wallPairs))} %${wallNoisy ? " (TOO NOISY TO DECIDE)" : ""}; ${how} (wall ms per process: ${each((r) => r.medianMs)})`,
    },
  ];
}

if (process.argv[2] === "--tracing-child") {
  const arg = process.argv[3];
  const mode: Mode = arg === "on" || arg === "unsampled" ? arg : "off";
  const result = await child(mode, process.argv[4]!);
  console.log(JSON.stringify(result));
  process.exit(0);
}
