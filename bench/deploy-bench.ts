/**
 * Deploy across machines (issue 18), measured as users run it with the real binary: the time
 * `sluice deploy` takes to build, validate and publish a 200-module project to a SQLite file,
 * and the cold start of a release-only worker (`sluice worker --release` in an empty folder:
 * process start → release files written, 200 bundles loaded from the database → "ready").
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Figure, quantile } from "./report.js";

const BIN = resolve(import.meta.dirname, "..", "bin", "sluice.js");

const moduleSource = (i: number) => `import { workflow, task } from "windmill-client";

async function part(n: number) {
  return n + ${i};
}

export const main = workflow(async (n: number) => {
  return await task(part)(n);
});
`;

function deployOnce(root: string, db: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, "deploy", "--db", db, "--allow-empty"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`deploy failed: ${r.stderr}`);
  return performance.now() - t0;
}

function workerColdStart(cwd: string, db: string): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [BIN, "worker", "--release", "--db", db, "--quiet"], { cwd });
    let out = "";
    p.stdout.on("data", (d) => {
      out += d;
      if (/worker .* ready/.test(out)) {
        const ms = performance.now() - t0;
        p.kill("SIGTERM");
        p.on("exit", () => done(ms));
      }
    });
    p.on("exit", (code) => {
      if (!/ready/.test(out)) fail(new Error(`worker exited ${code} before ready: ${out}`));
    });
  });
}

/** Deploy time of a `modules`-module project, and cold starts of a release-only worker. */
export async function deployFigures(dir: string, modules = 200, samples = 3): Promise<Figure[]> {
  const root = join(dir, "deploy-project");
  for (let i = 0; i < modules; i++) {
    const file = join(root, "f", "mods", `m${String(i).padStart(3, "0")}.ts`);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, moduleSource(i));
  }
  const db = join(dir, "deploy.db");
  const first = deployOnce(root, db);
  writeFileSync(join(root, "f", "mods", "m000.ts"), moduleSource(1_000));
  const again = deployOnce(root, db);
  const cold: number[] = [];
  for (let s = 0; s < samples; s++) {
    const machine = join(dir, `worker-machine-${s}`);
    mkdirSync(machine, { recursive: true });
    cold.push(await workerColdStart(machine, db));
  }
  cold.sort((a, b) => a - b);
  return [
    { name: `sluice deploy, ${modules} modules, first release`, value: first, unit: "ms" },
    { name: `sluice deploy, ${modules} modules, one changed`, value: again, unit: "ms" },
    {
      name: `release-only worker cold start (${modules} modules), p50 of ${samples}`,
      value: quantile(cold, 0.5),
      unit: "ms",
      note: `max ${Math.round(cold[cold.length - 1]!)} ms; empty folder, code from the database`,
    },
  ];
}
