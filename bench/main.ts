/**
 * `npm run bench`: reproducible figures, printed beside the machine's own raw
 * limit. Not a test: nothing here asserts.
 *   npm run bench                 all SQLite benchmarks
 *   npm run bench -- --db postgres            the same on a throwaway embedded Postgres
 *   npm run bench -- --db postgres://…        the same on an existing Postgres server
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { batchThroughput, durableSteps, openBenchEngine, sequentialLatency } from "./engine-bench.js";
import { fanout, openFanoutEngine } from "./fanout-bench.js";
import { postgresBench } from "./postgres.js";
import { rawSqliteCommitsPerSecond } from "./raw-sqlite.js";
import { type Figure, fmt, printFigures, quantile } from "./report.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bench-"));
  const db = process.argv[process.argv.indexOf("--db") + 1];
  try {
    if (process.argv.includes("--db") && db?.startsWith("postgres")) {
      console.log(`sluice bench: node ${process.version}, ${cpus().length} cores, Postgres`);
      return await postgresBench(db, dir);
    }
    console.log(`sluice bench: node ${process.version}, ${cpus().length} cores, SQLite files in ${dir}`);
    const raw = rawSqliteCommitsPerSecond(dir);
    printFigures("machine limit", [{ name: "raw SQLite single-row commits (WAL, synchronous=FULL)", value: raw, unit: "commits/s" }]);

    const engine = await openBenchEngine(dir, "engine");
    // Warm-up: JIT and page cache, as any long-running worker has them.
    await durableSteps(engine, 200);
    await sequentialLatency(engine, 20);
    await batchThroughput(engine, 1_000);

    const a = [await durableSteps(engine), await durableSteps(engine), await durableSteps(engine)];
    const aRate = median(a.map((x) => x.stepsPerSecond));
    const lat = await sequentialLatency(engine, 100);
    const c = [await batchThroughput(engine), await batchThroughput(engine), await batchThroughput(engine)];
    const cRate = median(c.map((x) => x.runsPerSecond));
    await engine.stop();

    const figures: Figure[] = [
      {
        name: "(a) 200 workflows x 5 checkpointed steps",
        value: aRate,
        unit: "steps/s",
        target: ">= 3x raw",
        met: aRate >= 3 * raw,
        note: `${(aRate / raw).toFixed(1)}x raw; median of 3 (${a.map((x) => `${fmt(x.ms)} ms`).join(", ")}), ${a[1]!.batches} group commits each`,
      },
      { name: "(b) 100 sequential one-step workflows, p50", value: quantile(lat, 0.5), unit: "ms", target: "< 1.5 ms", met: quantile(lat, 0.5) < 1.5 },
      { name: "(b) 100 sequential one-step workflows, p99", value: quantile(lat, 0.99), unit: "ms", target: "< 5 ms", met: quantile(lat, 0.99) < 5, note: `max ${fmt(lat[lat.length - 1]!)} ms` },
      {
        name: "(c) 5,000 runs enqueued in one batch",
        value: cRate,
        unit: "runs/s",
        target: "> 5,000",
        met: cRate > 5_000,
        note: `${(cRate / raw).toFixed(1)}x raw; median of 3 (${c.map((x) => `${fmt(x.ms)} ms`).join(", ")})`,
      },
    ];
    printFigures("engine on SQLite (embedded worker)", figures);

    const fan = await openFanoutEngine(dir);
    await fanout(fan, 200); // warm-up
    const f500 = [await fanout(fan, 500), await fanout(fan, 500), await fanout(fan, 500)].sort((x, y) => x.ms - y.ms)[1]!;
    const f10k = await fanout(fan, 10_000);
    await fan.stop();
    printFigures("workflows as code: one workflow, N parallel child tasks summed (embedded worker, 500 slots)", [
      { name: "500 children", value: f500.ms, unit: "ms", target: "< 200 ms", met: f500.ms < 200, note: `${fmt(f500.tasksPerSecond)} tasks/s (median of 3)` },
      { name: "10,000 children", value: f10k.ms, unit: "ms", target: "< 2,000 ms", met: f10k.ms < 2_000, note: `${fmt(f10k.tasksPerSecond)} tasks/s` },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
