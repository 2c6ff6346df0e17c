/**
 * The four workloads of issue 15, each measured in the process that runs it (see `child.ts`):
 * engine created, 3 warm-up runs where it applies, then timed; every timed run's completion is
 * read back from the store (`handle.result()` reads the run's row) and counted again afterwards.
 */
import type { Engine } from "../../dist/index.js";
import { batchThroughput, durableSteps, openBenchEngine, sequentialLatency } from "../engine-bench.js";

/** Workload names. */
export const WORKLOADS = ["W1", "W2", "W3", "W4"] as const;
export type Workload = (typeof WORKLOADS)[number];

/** What one measurement of a workload returns. */
export interface Measurement {
  /** W1 steps/s, W2 seconds, W3 runs/s, W4 p50 ms. */
  value: number;
  /** W4 only: p99 ms. */
  p99?: number;
  /** Runs the store holds as succeeded after the timed part (durable completion read back). */
  succeeded: number;
}

/**
 * W2's module, loaded by W2's process only: it imports the project loader (W2 runs a Windmill-style
 * folder), whose modules would otherwise sit in the young heap of every other workload's fresh
 * process and add a scavenge to its timed part.
 */
function fanoutBench(): Promise<typeof import("../fanout-bench.js")> {
  return import("../fanout-bench.js");
}

async function succeededRuns(engine: Engine): Promise<number> {
  return engine.store.countRuns({ status: "succeeded" });
}

/** Opens the engine a workload runs on, in `dir` with the database `database`. */
async function open(w: Workload, dir: string, database: string): Promise<Engine> {
  if (w === "W2") return (await fanoutBench()).openFanoutEngine(dir, database);
  return openBenchEngine(dir, w, database, w === "W3" ? { concurrency: 10 } : {});
}

/** Runs workload `w` on a fresh engine: warm-up, timed part, read-back. */
export async function measure(w: Workload, dir: string, database: string): Promise<Measurement> {
  const engine = await open(w, dir, database);
  try {
    const before = await succeededRuns(engine);
    let m: Omit<Measurement, "succeeded">;
    let expected: number;
    if (w === "W1") {
      await durableSteps(engine, 3);
      m = { value: (await durableSteps(engine, 200)).stepsPerSecond };
      expected = 203;
    } else if (w === "W2") {
      const { fanout } = await fanoutBench();
      for (let i = 0; i < 3; i++) await fanout(engine, 10);
      m = { value: (await fanout(engine, 500)).ms / 1000 };
      expected = 3 * 11 + 501;
    } else if (w === "W3") {
      await batchThroughput(engine, 3);
      m = { value: (await batchThroughput(engine, 5_000)).runsPerSecond };
      expected = 5_003;
    } else {
      await sequentialLatency(engine, 3);
      const lat = await sequentialLatency(engine, 100);
      m = { value: lat[49]!, p99: lat[98]! };
      expected = 103;
    }
    const succeeded = (await succeededRuns(engine)) - before;
    if (succeeded !== expected) throw new Error(`${w}: ${succeeded} runs succeeded in the store, expected ${expected}`);
    return { ...m, succeeded };
  } finally {
    await engine.stop();
  }
}
