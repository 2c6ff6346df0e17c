/** The benchmark suite shared by every store: measurements and their figures, targets per store. */
import type { Engine } from "../dist/index.js";
import { batchThroughput, durableSteps, sequentialLatency } from "./engine-bench.js";
import { fanout } from "./fanout-bench.js";
import { type Figure, fmt, quantile } from "./report.js";

/** Targets an issue sets for a store (absent: printed without a target). */
export interface Targets {
  p50Ms: number;
  p99Ms?: number;
  runsPerSecond?: number;
  fanout500Ms?: number;
  fanout10kMs?: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Figure with an optional target: `met` is only set when there is a target. */
function figure(
  name: string,
  value: number,
  unit: string,
  target: { label: string; met: boolean } | null,
  note?: string,
): Figure {
  return target ? { name, value, unit, target: target.label, met: target.met, note } : { name, value, unit, note };
}

/** (a) durable steps/s, (b) sequential latency, (c) batch throughput, after a warm-up. */
export async function engineFigures(engine: Engine, raw: number, t: Targets): Promise<Figure[]> {
  // Warm-up: JIT and page cache, as any long-running worker has them.
  await durableSteps(engine, 200);
  await sequentialLatency(engine, 20);
  await batchThroughput(engine, 1_000);
  const a = [await durableSteps(engine), await durableSteps(engine), await durableSteps(engine)];
  const aRate = median(a.map((x) => x.stepsPerSecond));
  const lat = await sequentialLatency(engine, 100);
  const c = [await batchThroughput(engine), await batchThroughput(engine), await batchThroughput(engine)];
  const cRate = median(c.map((x) => x.runsPerSecond));
  const p50 = quantile(lat, 0.5);
  const p99 = quantile(lat, 0.99);
  return [
    figure(
      "(a) 200 workflows x 5 checkpointed steps",
      aRate,
      "steps/s",
      { label: ">= 3x raw", met: aRate >= 3 * raw },
      `${(aRate / raw).toFixed(1)}x raw; median of 3 (${a.map((x) => `${fmt(x.ms)} ms`).join(", ")}), ${a[1]!.batches} group commits each`,
    ),
    figure("(b) 100 sequential one-step workflows, p50", p50, "ms", { label: `< ${t.p50Ms} ms`, met: p50 < t.p50Ms }),
    figure(
      "(b) 100 sequential one-step workflows, p99",
      p99,
      "ms",
      t.p99Ms ? { label: `< ${t.p99Ms} ms`, met: p99 < t.p99Ms } : null,
      `max ${fmt(lat[lat.length - 1]!)} ms`,
    ),
    figure(
      "(c) 5,000 runs enqueued in one batch",
      cRate,
      "runs/s",
      t.runsPerSecond ? { label: `> ${fmt(t.runsPerSecond)}`, met: cRate > t.runsPerSecond } : null,
      `${(cRate / raw).toFixed(1)}x raw; median of 3 (${c.map((x) => `${fmt(x.ms)} ms`).join(", ")})`,
    ),
  ];
}

/** One workflow fanning out to 500 (median of 3) and 10,000 child tasks. */
export async function fanoutFigures(fan: Engine, t: Targets): Promise<Figure[]> {
  await fanout(fan, 200); // warm-up
  const f500 = [await fanout(fan, 500), await fanout(fan, 500), await fanout(fan, 500)].sort((x, y) => x.ms - y.ms)[1]!;
  const f10k = await fanout(fan, 10_000);
  return [
    figure(
      "500 children",
      f500.ms,
      "ms",
      t.fanout500Ms ? { label: `< ${fmt(t.fanout500Ms)} ms`, met: f500.ms < t.fanout500Ms } : null,
      `${fmt(f500.tasksPerSecond)} tasks/s (median of 3)`,
    ),
    figure(
      "10,000 children",
      f10k.ms,
      "ms",
      t.fanout10kMs ? { label: `< ${fmt(t.fanout10kMs)} ms`, met: f10k.ms < t.fanout10kMs } : null,
      `${fmt(f10k.tasksPerSecond)} tasks/s`,
    ),
  ];
}
