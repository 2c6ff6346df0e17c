/**
 * `npm run bench -- --hot [--db postgres|postgres://…]`: the hot-path workloads of
 * issue 15 in this (warm) process: W1 200 workflows x 5 steps, W3 5,000 one-shot
 * runs at worker concurrency 10, W4 100 sequential one-step runs (p50/p99).
 */
import { join } from "node:path";
import { createEngine, defineWorkflow, type Engine } from "../dist/index.js";
import { batchThroughput, durableSteps, sequentialLatency } from "./engine-bench.js";
import { type Figure, fmt, quantile } from "./report.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Targets of issue 15 for one store. */
export interface HotTargets {
  w1StepsPerSecond: number;
  w3RunsPerSecond: number;
  w4P50Ms: number;
  w4P99Ms: number;
}

/** Issue 15's targets per store. */
export const HOT_TARGETS: Record<"sqlite" | "postgres", HotTargets> = {
  sqlite: { w1StepsPerSecond: 15_000, w3RunsPerSecond: 8_000, w4P50Ms: 1.0, w4P99Ms: 3 },
  postgres: { w1StepsPerSecond: 8_000, w3RunsPerSecond: 3_500, w4P50Ms: 3.5, w4P99Ms: 8 },
};

// The same workflow names as engine-bench, so its measurements run unchanged on these engines.
const fiveSteps = defineWorkflow("bench-five-steps", {
  handler: async (_p, ctx) => {
    for (let i = 0; i < 5; i++) await ctx.run(`step-${i}`, () => i);
    return 5;
  },
});
const oneStep = defineWorkflow("bench-one-step", { handler: async (_p, ctx) => ctx.run("only", () => 1) });
const noop = defineWorkflow("bench-noop", { handler: async () => 1 });

/** Write transactions (group commits and claims) and process CPU time, counted around a measurement. */
interface Cost {
  transactions: number;
  cpuMs: number;
}

/** Counts the store's write transactions (commit and claim calls) of `engine`. */
function countTransactions(engine: Engine): () => number {
  const store = engine.store as unknown as Record<"commit" | "claim", (...a: unknown[]) => Promise<unknown>>;
  let n = 0;
  for (const verb of ["commit", "claim"] as const) {
    const original = store[verb]!.bind(store);
    store[verb] = (...a: unknown[]) => ((n += 1), original(...a));
  }
  return () => n;
}

async function measured<T>(tx: () => number, work: () => Promise<T>): Promise<T & Cost> {
  const t0 = tx();
  const c0 = process.cpuUsage();
  const r = await work();
  const c = process.cpuUsage(c0);
  return { ...r, transactions: tx() - t0, cpuMs: (c.user + c.system) / 1000 };
}

const per = (cost: Cost[], units: number) =>
  `${(median(cost.map((c) => c.transactions)) / units).toFixed(2)} tx and ${(
    (median(cost.map((c) => c.cpuMs)) / units) *
    1000
  ).toFixed(0)} us CPU per`;

async function open(database: string, concurrency: number): Promise<Engine> {
  const engine = createEngine({
    database,
    workflows: [fiveSteps, oneStep, noop],
    scheduler: false,
    worker: { concurrency },
  });
  await engine.start();
  return engine;
}

/** W1, W3 (concurrency 10) and W4 on `database` (a SQLite path or Postgres URL), each after a warm-up. */
export async function hotFigures(
  dir: string,
  t: HotTargets,
  database = (name: string) => join(dir, `${name}.db`),
): Promise<Figure[]> {
  const wide = await open(database("hot-wide"), 500);
  const wideTx = countTransactions(wide);
  await durableSteps(wide, 200);
  const w1Runs: Array<{ stepsPerSecond: number } & Cost> = [];
  for (let i = 0; i < 3; i++) w1Runs.push(await measured(wideTx, () => durableSteps(wide)));
  const w1 = median(w1Runs.map((r) => r.stepsPerSecond));
  await sequentialLatency(wide, 20);
  const w4Run = await measured(wideTx, async () => ({ lat: await sequentialLatency(wide, 100) }));
  const lat = w4Run.lat;
  await wide.stop();
  const narrow = await open(database("hot-narrow"), 10);
  const narrowTx = countTransactions(narrow);
  await batchThroughput(narrow, 500);
  const w3Runs: Array<{ runsPerSecond: number } & Cost> = [];
  for (let i = 0; i < 3; i++) w3Runs.push(await measured(narrowTx, () => batchThroughput(narrow)));
  const w3 = median(w3Runs.map((r) => r.runsPerSecond));
  await narrow.stop();
  const p50 = quantile(lat, 0.5);
  const p99 = quantile(lat, 0.99);
  return [
    {
      name: "W1 200 workflows x 5 steps",
      value: w1,
      unit: "steps/s",
      target: `>= ${fmt(t.w1StepsPerSecond)}`,
      met: w1 >= t.w1StepsPerSecond,
      note: `median of 3; ${per(w1Runs, 1_000)} step`,
    },
    {
      name: "W3 5,000 one-shot runs, concurrency 10",
      value: w3,
      unit: "runs/s",
      target: `>= ${fmt(t.w3RunsPerSecond)}`,
      met: w3 >= t.w3RunsPerSecond,
      note: `median of 3; ${per(w3Runs, 5_000)} run`,
    },
    {
      name: "W4 100 sequential one-step runs, p50",
      value: p50,
      unit: "ms",
      target: `<= ${t.w4P50Ms} ms`,
      met: p50 <= t.w4P50Ms,
    },
    {
      name: "W4 100 sequential one-step runs, p99",
      value: p99,
      unit: "ms",
      target: `<= ${t.w4P99Ms} ms`,
      met: p99 <= t.w4P99Ms,
      note: `max ${fmt(lat[lat.length - 1]!)} ms; ${per([w4Run], 100)} run`,
    },
  ];
}
