/** Engine benchmarks of issue 2: durable steps/s, start-to-finish latency, batch throughput. */
import { join } from "node:path";
import { createEngine, defineWorkflow, type Engine } from "../dist/index.js";

const fiveSteps = defineWorkflow("bench-five-steps", {
  handler: async (_p, ctx) => {
    for (let i = 0; i < 5; i++) await ctx.run(`step-${i}`, () => i);
    return 5;
  },
});
const oneStep = defineWorkflow("bench-one-step", { handler: async (_p, ctx) => ctx.run("only", () => 1) });
const noop = defineWorkflow("bench-noop", { handler: async () => 1 });

/**
 * Opens an engine with an embedded worker (default options, or `worker`) on a fresh SQLite file
 * (or on `database`, e.g. a Postgres URL).
 */
export async function openBenchEngine(
  dir: string,
  name: string,
  database = join(dir, `${name}.db`),
  worker: { concurrency?: number } = {},
): Promise<Engine> {
  const engine = createEngine({ database, workflows: [fiveSteps, oneStep, noop], scheduler: false, worker });
  await engine.start();
  return engine;
}

/** (a) `runs` workflows started at once, 5 sequential checkpointed no-op steps each: durable steps/s. */
export async function durableSteps(
  engine: Engine,
  runs = 200,
): Promise<{ stepsPerSecond: number; ms: number; batches: number }> {
  const before = engine.committer.stats.batches;
  const start = performance.now();
  const handles = await engine.enqueueMany(
    fiveSteps,
    Array.from({ length: runs }, (_, i) => ({ i })),
  );
  await Promise.all(handles.map((h) => h.result()));
  const ms = performance.now() - start;
  return { stepsPerSecond: (runs * 5) / (ms / 1000), ms, batches: engine.committer.stats.batches - before };
}

/** (b) sequential one-step workflows: start-to-finish latencies (ms), sorted. */
export async function sequentialLatency(engine: Engine, runs = 100): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const handle = await oneStep.start({ i });
    await handle.result();
    latencies.push(performance.now() - start);
  }
  return latencies.sort((a, b) => a - b);
}

/** (c) `runs` runs enqueued in one batch and processed: runs/s. */
export async function batchThroughput(engine: Engine, runs = 5_000): Promise<{ runsPerSecond: number; ms: number }> {
  const start = performance.now();
  const handles = await engine.enqueueMany(
    noop,
    Array.from({ length: runs }, (_, i) => i),
  );
  await Promise.all(handles.map((h) => h.result()));
  const ms = performance.now() - start;
  return { runsPerSecond: runs / (ms / 1000), ms };
}
