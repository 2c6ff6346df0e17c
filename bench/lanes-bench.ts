/**
 * Scale to zero (issue 9): the start-up cost of a cold lane, measured as users see it.
 * A `sluice server`-style supervisor (an engine without a worker, the project loaded,
 * a lane supervisor) watches a SQLite file; each sample enqueues a one-step workflow
 * while no worker process exists and times enqueue → run finished, which includes
 * spawning `node bin/sluice.js worker --from-build …`, its start-up, the claim and the
 * step. Between samples the worker exits after a 50 ms idle window.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createEngine } from "../dist/index.js";
import { writeBuildManifest } from "../dist/lanes/build-manifest.js";
import { workerSpawner } from "../dist/lanes/spawn.js";
import { LaneSupervisor } from "../dist/lanes/supervisor.js";
import { Project } from "../dist/loader/project.js";
import { type Figure, fmt, quantile } from "./report.js";

const HELLO = `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ n: number }>("hello", { handler: async (p, ctx) => ctx.run("greet", () => p.n) });
`;

/** Median and spread of `samples` cold starts, and the worker's own start-to-first-claim time. */
export async function laneColdStart(dir: string, samples = 15, targetMs = 300): Promise<Figure[]> {
  const root = join(dir, "lanes-project");
  mkdirSync(join(root, "workflows"), { recursive: true });
  writeFileSync(join(root, "workflows", "hello.ts"), HELLO);
  const database = join(root, ".sluice", "sluice.db");
  const engine = createEngine({ database, worker: false, scheduler: false, captureConsole: false });
  const loader = new Project(root, engine);
  await loader.loadAll();
  await engine.start();
  const log: string[] = [];
  /** When the supervisor logged that it starts a worker (performance.now()). */
  const spawnedAt: number[] = [];
  const lanes = new LaneSupervisor({
    store: engine.store,
    events: engine.events,
    workflows: () => engine.registry.names(),
    localServer: null,
    serverName: "bench",
    spawner: workerSpawner({
      root,
      database,
      idleMs: 50,
      concurrency: 500,
      drainMs: 5_000,
      server: null,
      env: process.env,
      buildFile: () => writeBuildManifest(root, loader.builds()),
      output: (line) => void log.push(line),
    }),
    log: (line) => {
      if (line.includes("runnable work, starting worker")) spawnedAt.push(performance.now());
      log.push(line);
    },
  });
  await lanes.start();
  const totals: number[] = [];
  const claims: number[] = [];
  const cpu: number[] = [];
  const toSpawn: number[] = [];
  try {
    for (let i = 0; i <= samples; i++) {
      await until(() => lanes.lanesInfo().every((l) => l.pid === null), 30_000);
      const seen = log.length;
      const spawns = spawnedAt.length;
      const start = performance.now();
      const handle = await engine.enqueueRun("hello", { n: i });
      await until(async () => (await engine.store.getRun(handle.id))?.status === "succeeded", 30_000, 1);
      const ms = performance.now() - start;
      const claimed = log
        .slice(seen)
        .join("")
        .match(/claimed its first run (\d+) ms after start(?: \((\d+) ms of CPU\))?/);
      if (i === 0) continue; // warm-up: page cache of node_modules and dist/
      totals.push(ms);
      if (claimed) claims.push(Number(claimed[1]));
      if (claimed?.[2]) cpu.push(Number(claimed[2]));
      if (spawnedAt.length > spawns) toSpawn.push(spawnedAt[spawns]! - start);
    }
  } finally {
    await lanes.stop(5_000);
    await engine.stop();
  }
  totals.sort((a, b) => a - b);
  claims.sort((a, b) => a - b);
  toSpawn.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const p50 = quantile(totals, 0.5);
  const bare: number[] = [];
  const bareCpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const out = execFileSync(process.execPath, [
      "-e",
      "const u = process.cpuUsage(); console.log((u.user + u.system) / 1000)",
    ]);
    bare.push(performance.now() - t);
    bareCpu.push(Number(String(out).trim()));
  }
  bare.sort((a, b) => a - b);
  bareCpu.sort((a, b) => a - b);
  return [
    {
      name: "machine floor: bare `node -e 0` start-up (p50 of 5)",
      value: quantile(bare, 0.5),
      unit: "ms",
      note: `load average ${loadavg()[0]!.toFixed(1)} on this machine during the run`,
    },
    {
      name: "machine floor: CPU time of a bare node start-up (p50 of 5)",
      value: quantile(bareCpu, 0.5),
      unit: "ms",
      note: "compare with the worker's CPU time to its first claim below",
    },
    {
      name: "enqueue -> one-step run finished, cold lane (p50)",
      value: p50,
      unit: "ms",
      target: `< ${targetMs} ms`,
      met: p50 < targetMs,
      note: `${samples} samples: ${totals.map((t) => fmt(t)).join(", ")} ms`,
    },
    {
      name: "enqueue -> one-step run finished, cold lane (p99)",
      value: quantile(totals, 0.99),
      unit: "ms",
      note: `with ${samples} samples: the slowest`,
    },
    {
      name: "of which enqueue -> worker spawned (p50)",
      value: quantile(toSpawn, 0.5),
      unit: "ms",
      note: "the supervisor noticing the run (checks at most every 25 ms) and spawning",
    },
    {
      name: "of which worker spawn -> first claim (p50)",
      value: quantile(claims, 0.5),
      unit: "ms",
      note: "node start-up, loading Sluice and the built workflow, opening the store",
    },
    {
      name: "of which worker CPU time, start -> first claim (p50)",
      value: quantile(cpu, 0.5),
      unit: "ms",
      note: "user + system CPU of the worker process until its first claim (less sensitive to other load than wall time)",
    },
  ];
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 5): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`lane bench: condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
