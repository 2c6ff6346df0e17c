/** Fan-out benchmark of issue 3: one workflow with N parallel child tasks, summing their results. */
import { writeFileSync, mkdirSync, symlinkSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createEngine, type Engine } from "../dist/index.js";
import { Project } from "../dist/loader/project.js";

const SOURCE = `
import { workflow, task } from "windmill-client";
async function one(i: number) { return i; }
export const main = workflow(async (n: number) => {
  const xs = await Promise.all(Array.from({ length: n }, (_, i) => task(one)(i)));
  return xs.reduce((a, b) => a + b, 0);
});
`;

/** Writes the fan-out workflow into a project folder and opens an engine on it (SQLite there, or `database`). */
export async function openFanoutEngine(dir: string, database?: string): Promise<Engine> {
  const root = join(dir, "fanout-project");
  mkdirSync(join(root, "f"), { recursive: true });
  writeFileSync(join(root, "f", "fanout.ts"), SOURCE);
  const modules = resolve(import.meta.dirname, "..", "node_modules");
  if (!existsSync(join(root, "node_modules"))) symlinkSync(modules, join(root, "node_modules"), "dir");
  const engine = createEngine({ database: database ?? join(root, "fanout.db"), scheduler: false });
  await engine.start();
  await new Project(root, engine).loadAll();
  return engine;
}

/** Runs one fan-out of `n` children; returns wall time and tasks/s. */
export async function fanout(engine: Engine, n: number): Promise<{ ms: number; tasksPerSecond: number; sum: number }> {
  const start = performance.now();
  const handle = await engine.enqueueRun<number>("f/fanout", { n });
  const sum = await handle.result();
  const ms = performance.now() - start;
  if (sum !== (n * (n - 1)) / 2) throw new Error(`fan-out of ${n} returned ${sum}`);
  return { ms, tasksPerSecond: n / (ms / 1000), sum };
}
