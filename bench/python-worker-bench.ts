/**
 * The Python worker SDK (`wmill.worker`, issue 13 gap 6) over the worker protocol, beside the
 * Go figures of go-worker-bench.ts. An engine without a worker of its own serves the HTTP API
 * on loopback (as `sluice server --workers none`); sdk-python/examples/bench_worker.py claims.
 *   - a fan-out of 500 task children (median of 3) and of 10,000 (written in parts before the
 *     park): enqueue → parent finished
 *   - 100 sequential one-step runs: enqueue → finished latency, p50 and p99
 * `SLUICE_BENCH_PYTHONPATH` points it at another copy of the SDK (to compare two versions).
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import type { Engine } from "../dist/index.js";
import { withExternalWorker } from "./external-worker.js";
import { type Figure, quantile } from "./report.js";

const SDK = resolve(import.meta.dirname, "..", "sdk-python");

async function fanout(engine: Engine, n: number): Promise<number> {
  const start = performance.now();
  const h = await engine.enqueueRun("py-fanout", { n });
  const run = await engine.waitForRun(h.id, 600_000);
  if (run.status !== "succeeded" || JSON.parse(run.result ?? "null") !== n)
    throw new Error(`Python worker fan-out of ${n}: ${run.status} ${JSON.stringify(run.result ?? run.error)}`);
  return performance.now() - start;
}

/** Fan-outs of 500 and 10,000 task children and 100 sequential one-step runs, Python worker. */
export async function pythonWorkerFigures(dir: string): Promise<Figure[]> {
  if (spawnSync("python3", ["--version"]).status !== 0)
    return [{ name: "Python worker", value: Number.NaN, unit: "", note: "skipped: python3 is not installed" }];
  const spec = {
    label: "the Python bench worker",
    command: "python3",
    args: [join(SDK, "examples", "bench_worker.py")],
    env: { PYTHONPATH: process.env.SLUICE_BENCH_PYTHONPATH ?? SDK },
    registers: "py-fanout",
    database: "py-worker-bench.db",
  };
  return withExternalWorker(dir, spec, async (engine) => {
    await fanout(engine, 100); // warm-up: connections, imports, page cache
    const f500 = [await fanout(engine, 500), await fanout(engine, 500), await fanout(engine, 500)].sort(
      (a, b) => a - b,
    )[1]!;
    const f10k = await fanout(engine, 10_000);
    const lat: number[] = [];
    for (let i = 0; i < 110; i++) {
      const s = performance.now();
      const h = await engine.enqueueRun("py-one", { i });
      await engine.waitForRun(h.id, 30_000);
      if (i >= 10) lat.push(performance.now() - s); // the first 10 warm up
    }
    lat.sort((a, b) => a - b);
    const p50 = quantile(lat, 0.5);
    return [
      { name: "Python worker: 500 task children", value: f500, unit: "ms", target: "< 1,000 ms", met: f500 < 1000 },
      {
        name: "Python worker: 10,000 task children",
        value: f10k / 1000,
        unit: "s",
        target: "< 10 s",
        met: f10k < 10_000,
        note: "written in parts before the park",
      },
      {
        name: "Python worker: 100 sequential one-step runs, p50",
        value: p50,
        unit: "ms",
        target: "< 50 ms",
        met: p50 < 50,
        note: `p99 ${quantile(lat, 0.99).toFixed(1)} ms`,
      },
    ];
  });
}
