/**
 * Python workflows as code (issue 13): one Python workflow fanning out to N `@task` children,
 * and sequential one-step Python workflows, on the same embedded engine as the TypeScript
 * fan-out, so the figures print beside each other.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine, type Engine } from "../dist/index.js";
import { Project } from "../dist/loader/project.js";
import { createApp } from "../dist/http/app.js";
import { listen } from "../dist/http/launch.js";
import { type Figure, fmt, quantile } from "./report.js";

const FANOUT = `import asyncio
from wmill import task, workflow

@task
async def one(i: int):
    return i

@workflow
async def main(n: int):
    return sum(await asyncio.gather(*(one(i) for i in range(n))))
`;

const ONE_STEP = `from wmill import step, workflow

@workflow
async def main(i: int):
    return await step("double", lambda: i * 2)
`;

/**
 * An engine (SQLite, 500 slots) with the Python benchmark workflows loaded; with `protocol`,
 * they run on the worker protocol (`SLUICE_PYTHON_HOST=protocol`): the engine's API on a
 * loopback port and the Python worker claiming from it (500 slots), as `sluice dev` runs them.
 */
export async function openPythonEngine(
  dir: string,
  protocol = false,
): Promise<{ engine: Engine; close: () => Promise<void> }> {
  const root = join(dir, protocol ? "python-protocol-project" : "python-project");
  mkdirSync(join(root, "f"), { recursive: true });
  writeFileSync(join(root, "f", "py_fanout.py"), FANOUT);
  writeFileSync(join(root, "f", "py_one_step.py"), ONE_STEP);
  const engine = createEngine({ database: join(root, "python.db"), scheduler: false });
  await engine.start();
  const project = new Project(root, engine);
  if (protocol) project.python.useProtocol();
  const report = await project.loadAll();
  if (report.errors.length) throw new Error(report.errors.map((e) => e.error.message).join("\n"));
  let http: Awaited<ReturnType<typeof listen>> | null = null;
  if (protocol) {
    http = await listen({ host: "127.0.0.1", port: 0 });
    http.attach(createApp({ engine, auth: { mode: "off" }, uiDir: null }));
    project.python.startProtocolWorker({
      url: http.server.url,
      env: { ...process.env, SLUICE_WORKER_CONCURRENCY: "500" },
      write: (line) => process.stderr.write(`${line}\n`),
    });
  }
  return {
    engine,
    close: async () => {
      await project.python.stopProtocolWorker();
      await http?.server.close();
      await engine.stop();
      project.python.close();
    },
  };
}

async function fanout(engine: Engine, n: number): Promise<number> {
  const start = performance.now();
  const sum = await (await engine.enqueueRun("f/py_fanout", { n })).result();
  if (sum !== (n * (n - 1)) / 2) throw new Error(`Python fan-out of ${n} returned ${String(sum)}`);
  return performance.now() - start;
}

/** Python fan-out of 500 (median of 3) and 10,000, and 100 sequential one-step workflows. */
export async function pythonFigures(engine: Engine, label = "Python"): Promise<Figure[]> {
  await fanout(engine, 200); // warm-up: starts the Python process, imports the file
  const f500 = [await fanout(engine, 500), await fanout(engine, 500), await fanout(engine, 500)].sort(
    (a, b) => a - b,
  )[1]!;
  const f10k = await fanout(engine, 10_000);
  for (let i = 0; i < 10; i++) await (await engine.enqueueRun("f/py_one_step", { i })).result();
  const lat: number[] = [];
  for (let i = 0; i < 100; i++) {
    const start = performance.now();
    await (await engine.enqueueRun("f/py_one_step", { i })).result();
    lat.push(performance.now() - start);
  }
  lat.sort((a, b) => a - b);
  const p50 = quantile(lat, 0.5);
  return [
    {
      name: `${label}: 500 children`,
      value: f500,
      unit: "ms",
      target: "< 1,000 ms",
      met: f500 < 1000,
      note: `${fmt(500 / (f500 / 1000))} tasks/s (median of 3)`,
    },
    {
      name: `${label}: 10,000 children`,
      value: f10k,
      unit: "ms",
      target: "< 10,000 ms",
      met: f10k < 10_000,
      note: `${fmt(10_000 / (f10k / 1000))} tasks/s`,
    },
    {
      name: `${label}: 100 sequential one-step workflows, p50`,
      value: p50,
      unit: "ms",
      target: "< 50 ms",
      met: p50 < 50,
    },
    { name: `${label}: 100 sequential one-step workflows, p99`, value: quantile(lat, 0.99), unit: "ms" },
  ];
}
