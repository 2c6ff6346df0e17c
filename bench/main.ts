/**
 * `npm run bench`: reproducible figures, printed beside the machine's own raw
 * limit. Not a test: nothing here asserts.
 *   npm run bench                 all SQLite benchmarks
 *   npm run bench -- --db postgres            the same on a throwaway embedded Postgres
 *   npm run bench -- --db postgres://…        the same on an existing Postgres server
 *   npm run bench -- --lanes                  only the cold-lane start-up (scale to zero)
 *   npm run bench -- --lake                   only the lake figures
 *   npm run bench -- --go                     only the Go worker SDK beside the built-in worker, then the Python worker SDK
 *   npm run bench -- --python-worker          only the Python worker SDK (wmill.worker over the worker protocol)
 *   npm run bench -- --python                 only Python workflows as code beside the TypeScript fan-out
 *   npm run bench -- --backfill               only the 365-partition pipeline backfill
 *   npm run bench -- --tracing                only the tracing overhead (200 × 5 steps, OpenTelemetry SDK on/off)
 *   npm run bench -- --cold                   only issue 15's W1–W4, each in a fresh process, SQLite and Postgres
 *   npm run bench -- --large                  only W1/W3/W4 on 1,000,000 finished + 100,000 parked runs
 *                                             (SQLite; add --large-postgres for Postgres too) and retention
 *   npm run bench -- --timers                 only 10,000 timers due at once (spread of starts), both stores
 *                                             (with --sqlite-only: SQLite only; SLUICE_BENCH_TIMER_SHAPES=2x200,2x5000)
 *   npm run bench -- --deploy                 only deploy time and release-only worker cold start
 *   npm run bench -- --hot [--db postgres]    only the hot-path workloads W1, W3, W4 of issue 15
 *   npm run bench -- --triggers               only MQTT and NATS messages into durable runs
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { openBenchEngine } from "./engine-bench.js";
import { openFanoutEngine } from "./fanout-bench.js";
import { lakeFigures } from "./lake-bench.js";
import { postgresBench } from "./postgres.js";
import { rawSqliteCommitsPerSecond } from "./raw-sqlite.js";
import { printFigures } from "./report.js";
import { engineFigures, fanoutFigures } from "./suite.js";
import { laneColdStart } from "./lanes-bench.js";
import { goWorkerFigures } from "./go-worker-bench.js";
import { pythonWorkerFigures } from "./python-worker-bench.js";
import { openPythonEngine, pythonFigures } from "./python-bench.js";
import { backfillFigures } from "./backfill-bench.js";
import { tracingFigures } from "./tracing-bench.js";
import { issue15Bench } from "./cold/sections.js";
import { HOT_TARGETS, hotFigures } from "./hot-bench.js";
import { deployFigures } from "./deploy-bench.js";
import { triggerFigures } from "./triggers-bench.js";

const TRACING_TITLE =
  "tracing overhead: 200 runs × 5 steps with the OpenTelemetry SDK on and off (SQLite, embedded worker)";

const DEPLOY_TITLE =
  "deploy across machines: sluice deploy of a 200-module project, release-only worker start (SQLite)";

const TRIGGERS_TITLE =
  "native triggers: broker messages into durable runs, acked after enqueue (real brokers on loopback, SQLite)";

const BACKFILL_TITLE =
  "pipeline backfill: 365 daily partitions of a 3-step chain (CLI in-process, its own worker, SQLite)";

const GO_TITLE = "Go worker SDK over the worker protocol (HTTP on loopback) beside the built-in worker (SQLite)";

const PYTHON_WORKER_TITLE =
  "Python worker SDK (wmill.worker) over the worker protocol (HTTP on loopback), beside the Go figures (SQLite)";

async function workerSdkSections(dir: string): Promise<void> {
  printFigures(GO_TITLE, await goWorkerFigures(dir));
  printFigures(PYTHON_WORKER_TITLE, await pythonWorkerFigures(dir));
}

const FANOUT_TITLE = "workflows as code: one workflow, N parallel child tasks summed (embedded worker, 500 slots)";
const PYTHON_TITLE = "Python workflows as code on the same engine (embedded worker, one Python process)";
const PYTHON_PROTOCOL_TITLE =
  "Python workflows as code on the worker protocol (SLUICE_PYTHON_HOST=protocol: loopback API, one Python worker, 500 slots)";

async function pythonSection(dir: string, targets: Parameters<typeof fanoutFigures>[1]): Promise<void> {
  const fan = await openFanoutEngine(dir);
  printFigures(FANOUT_TITLE, await fanoutFigures(fan, targets));
  await fan.stop();
  const py = await openPythonEngine(dir);
  printFigures(PYTHON_TITLE, await pythonFigures(py.engine));
  await py.close();
  const onProtocol = await openPythonEngine(dir, true);
  printFigures(PYTHON_PROTOCOL_TITLE, await pythonFigures(onProtocol.engine, "Python (protocol)"));
  await onProtocol.close();
}

const LANES_TITLE = "scale to zero: a worker process started for the first run of an idle lane (SQLite)";

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bench-"));
  const db = process.argv[process.argv.indexOf("--db") + 1];
  try {
    if (process.argv.includes("--lanes")) {
      console.log(`sluice bench: node ${process.version}, ${cpus().length} cores, cold lanes only`);
      return printFigures(LANES_TITLE, await laneColdStart(dir));
    }
    const hot = process.argv.includes("--hot");
    if (process.argv.includes("--db") && db?.startsWith("postgres")) {
      console.log(`sluice bench: node ${process.version}, ${cpus().length} cores, Postgres`);
      return await postgresBench(db, dir, { hotOnly: hot });
    }
    console.log(`sluice bench: node ${process.version}, ${cpus().length} cores, SQLite files in ${dir}`);
    const only = (flag: string) => process.argv.includes(flag);
    if (only("--cold") || only("--large") || only("--large-postgres") || only("--timers"))
      return await issue15Bench(dir, {
        cold: only("--cold"),
        large: only("--large"),
        largePostgres: only("--large-postgres"),
        timers: only("--timers"),
        sqliteOnly: only("--sqlite-only"),
      });
    if (process.argv.includes("--lake"))
      return printFigures("DuckLake (SQLite catalog, local Parquet)", await lakeFigures(dir));
    if (process.argv.includes("--go")) return await workerSdkSections(dir);
    if (process.argv.includes("--python-worker"))
      return printFigures(PYTHON_WORKER_TITLE, await pythonWorkerFigures(dir));
    if (process.argv.includes("--python"))
      return await pythonSection(dir, { p50Ms: 1.5, fanout500Ms: 200, fanout10kMs: 2_000 });
    if (process.argv.includes("--backfill")) return printFigures(BACKFILL_TITLE, await backfillFigures(dir));
    if (process.argv.includes("--tracing")) return printFigures(TRACING_TITLE, await tracingFigures(dir));
    if (process.argv.includes("--deploy")) return printFigures(DEPLOY_TITLE, await deployFigures(dir));
    if (process.argv.includes("--triggers")) return printFigures(TRIGGERS_TITLE, await triggerFigures(dir));
    const raw = rawSqliteCommitsPerSecond(dir);
    printFigures("machine limit", [
      { name: "raw SQLite single-row commits (WAL, synchronous=FULL)", value: raw, unit: "commits/s" },
    ]);
    if (hot) return printFigures("hot path on SQLite (issue 15)", await hotFigures(dir, HOT_TARGETS.sqlite));

    // Targets of issues 2 and 3 (SQLite, embedded worker, 2 cores).
    const targets = { p50Ms: 1.5, p99Ms: 5, runsPerSecond: 5_000, fanout500Ms: 200, fanout10kMs: 2_000 };
    const engine = await openBenchEngine(dir, "engine");
    printFigures("engine on SQLite (embedded worker)", await engineFigures(engine, raw, targets));
    await engine.stop();

    await pythonSection(dir, targets);

    printFigures(LANES_TITLE, await laneColdStart(dir));
    printFigures("DuckLake (SQLite catalog, local Parquet)", await lakeFigures(dir));
    await workerSdkSections(dir);
    printFigures(BACKFILL_TITLE, await backfillFigures(dir));
    printFigures(TRACING_TITLE, await tracingFigures(dir));
    // Issue 15: cold processes on both stores, a large history with retention (SQLite), timers.
    await issue15Bench(dir, { cold: true, large: true, largePostgres: false, timers: true });
    printFigures(DEPLOY_TITLE, await deployFigures(dir));
    printFigures(TRIGGERS_TITLE, await triggerFigures(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
