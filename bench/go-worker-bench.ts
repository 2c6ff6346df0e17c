/**
 * Issue 12: the Go worker SDK beside the built-in worker. An engine without a worker of
 * its own serves the HTTP API on loopback (as `sluice server --workers none`); the Go
 * program sdk-go/examples/bench-worker claims over the worker protocol. The same shapes
 * run on an engine with its embedded worker. Needs `go`; skipped with a note otherwise.
 *   - 200 workflows × 5 steps, enqueued at once: steps per second
 *   - 100 sequential one-step runs: enqueue → finished latency, p50 and p99
 *   - a fan-out of 10,000 task children started together by the Go worker (over the SDK's park
 *     budget, so written as `children` parts before the park): enqueue → parent finished
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createEngine, defineWorkflow, type Engine } from "../dist/index.js";
import { withExternalWorker } from "./external-worker.js";
import { type Figure, quantile } from "./report.js";

const REPO = resolve(import.meta.dirname, "..");

interface Shape {
  steps: number;
  stepsPerSecond: number;
  p50: number;
  p99: number;
}

/** The two shapes; `scale` < 1 for a warm-up pass (JIT, connections, page cache) that is not reported. */
async function measure(engine: Engine, five: string, one: string, scale = 1): Promise<Shape> {
  const runs = Math.round(200 * scale);
  const t0 = performance.now();
  const handles = await engine.enqueueMany(
    five,
    Array.from({ length: runs }, (_, i) => ({ i })),
  );
  await Promise.all(handles.map((h) => engine.waitForRun(h.id, 120_000)));
  const stepsPerSecond = (runs * 5) / ((performance.now() - t0) / 1000);
  const lat: number[] = [];
  for (let i = 0; i < Math.round(100 * scale); i++) {
    const s = performance.now();
    const h = await engine.enqueueRun(one, { i });
    await engine.waitForRun(h.id, 30_000);
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  return { steps: runs * 5, stepsPerSecond, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
}

/** Figures of the Go worker and of the built-in worker on the same shapes (SQLite). */
export async function goWorkerFigures(dir: string): Promise<Figure[]> {
  if (spawnSync("go", ["version"]).status !== 0)
    return [
      {
        name: "Go worker",
        value: Number.NaN,
        unit: "",
        note: "skipped: `go` is not installed (apt-get install golang-go)",
      },
    ];
  const bin = join(dir, "bench-worker");
  const env = {
    ...process.env,
    GOCACHE: join(tmpdir(), "sluice-test-gocache"),
    GOFLAGS: "",
    GOPROXY: "off",
    CGO_ENABLED: "0",
  };
  mkdirSync(env.GOCACHE, { recursive: true });
  const build = spawnSync("go", ["build", "-o", bin, "./examples/bench-worker"], {
    cwd: join(REPO, "sdk-go"),
    env,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`go build failed: ${build.stderr}`);

  // Built-in worker.
  const builtIn = createEngine({ database: join(dir, "go-bench-builtin.db"), scheduler: false, captureConsole: false });
  const step = (n: number) =>
    defineWorkflow(`js-${n}`, {
      handler: async (_p: unknown, ctx) => {
        for (let i = 0; i < n; i++) await ctx.run(`s${i}`, () => 1);
      },
    });
  await builtIn.register([step(5), step(1)]);
  await builtIn.start();
  await measure(builtIn, "js-5", "js-1", 0.25);
  const js = await measure(builtIn, "js-5", "js-1");
  await builtIn.stop();

  // Go worker over HTTP.
  const spec = { label: "the Go bench worker", command: bin, registers: "go-one", database: "go-bench.db" };
  return withExternalWorker(dir, spec, async (engine) => {
    await measure(engine, "go-five", "go-one", 0.25);
    const go = await measure(engine, "go-five", "go-one");
    const f0 = performance.now();
    const fan = await engine.enqueueRun("go-fanout", { n: 10_000 });
    const fanRun = await engine.waitForRun(fan.id, 300_000);
    const fanSeconds = (performance.now() - f0) / 1000;
    const ratio = js.stepsPerSecond / go.stepsPerSecond;
    return [
      { name: "200 workflows × 5 steps, built-in worker", value: js.stepsPerSecond, unit: "steps/s" },
      {
        name: "200 workflows × 5 steps, Go worker",
        value: go.stepsPerSecond,
        unit: "steps/s",
        target: "within 3x of built-in",
        met: ratio <= 3,
        note: ratio >= 1 ? `${ratio.toFixed(1)}x slower` : `${(1 / ratio).toFixed(1)}x faster`,
      },
      {
        name: "100 sequential one-step runs, built-in p50",
        value: js.p50,
        unit: "ms",
        note: `p99 ${js.p99.toFixed(1)} ms`,
      },
      {
        name: "fan-out of 10,000 task children in one park, Go worker",
        value: fanSeconds,
        unit: "s",
        target: "< 10 s",
        met: fanRun.status === "succeeded" && fanSeconds < 10,
        note: fanRun.status === "succeeded" ? "written in parts before the park" : `parent ${fanRun.status}`,
      },
      {
        name: "100 sequential one-step runs, Go p50",
        value: go.p50,
        unit: "ms",
        target: "< 5 ms",
        met: go.p50 < 5,
        note: `p99 ${go.p99.toFixed(1)} ms`,
      },
    ];
  });
}
