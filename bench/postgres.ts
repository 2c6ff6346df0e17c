/**
 * `npm run bench -- --db postgres`: the engine benchmarks on Postgres, beside the
 * same run's raw single-row commit rate of that server. `--db postgres` starts a
 * throwaway embedded cluster with durable settings (fsync and synchronous_commit
 * on); `--db postgres://…` benchmarks an existing server in a scratch schema that
 * is dropped afterwards.
 */
import pg from "pg";
import { batchThroughput, durableSteps, openBenchEngine, sequentialLatency } from "./engine-bench.js";
import { fanout, openFanoutEngine } from "./fanout-bench.js";
import { startCluster } from "./pg-cluster.js";
import { type Figure, fmt, printFigures, quantile } from "./report.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Single-row INSERT commits per second from one connection, for `ms` milliseconds. */
async function rawPostgresCommitsPerSecond(url: string, schema: string, ms = 2_000): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`CREATE TABLE ${schema}.raw (id bigserial PRIMARY KEY, v text)`);
    for (let i = 0; i < 200; i++) await c.query(`INSERT INTO ${schema}.raw (v) VALUES ($1)`, ["warm-up"]);
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      await c.query(`INSERT INTO ${schema}.raw (v) VALUES ($1)`, ["x"]);
      n++;
    }
    return n / ((performance.now() - start) / 1000);
  } finally {
    await c.end();
  }
}

async function settings(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query("SELECT current_setting('server_version') AS v, current_setting('fsync') AS f, current_setting('synchronous_commit') AS s");
    return `Postgres ${rows[0].v}, fsync=${rows[0].f}, synchronous_commit=${rows[0].s}`;
  } finally {
    await c.end();
  }
}

/** Runs every engine benchmark against Postgres (`setting` is `postgres` or a URL). */
export async function postgresBench(setting: string, dir: string): Promise<void> {
  const cluster = /^postgres(ql)?:\/\//.test(setting) ? null : await startCluster();
  const url = cluster?.url ?? setting;
  const schema = `bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const withSchema = (s: string) => {
    const u = new URL(url);
    u.searchParams.set("schema", s);
    return u.toString();
  };
  try {
    console.log(`${await settings(url)}${cluster ? " (embedded cluster started for this run)" : ""}`);
    const raw = await rawPostgresCommitsPerSecond(url, schema);
    printFigures("machine limit", [{ name: "raw Postgres single-row commits (one connection, autocommit)", value: raw, unit: "commits/s" }]);

    const engine = await openBenchEngine(dir, "engine", withSchema(`${schema}_engine`));
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
      { name: "(b) 100 sequential one-step workflows, p50", value: quantile(lat, 0.5), unit: "ms", target: "< 10 ms", met: quantile(lat, 0.5) < 10 },
      { name: "(b) 100 sequential one-step workflows, p99", value: quantile(lat, 0.99), unit: "ms", note: `max ${fmt(lat[lat.length - 1]!)} ms` },
      {
        name: "(c) 5,000 runs enqueued in one batch",
        value: cRate,
        unit: "runs/s",
        note: `${(cRate / raw).toFixed(1)}x raw; median of 3 (${c.map((x) => `${fmt(x.ms)} ms`).join(", ")})`,
      },
    ];
    printFigures("engine on Postgres (embedded worker)", figures);

    const fan = await openFanoutEngine(dir, withSchema(`${schema}_fanout`));
    await fanout(fan, 200);
    const f500 = [await fanout(fan, 500), await fanout(fan, 500), await fanout(fan, 500)].sort((x, y) => x.ms - y.ms)[1]!;
    const f10k = await fanout(fan, 10_000);
    await fan.stop();
    printFigures("workflows as code on Postgres: one workflow, N parallel child tasks summed (embedded worker, 500 slots)", [
      { name: "500 children", value: f500.ms, unit: "ms", note: `${fmt(f500.tasksPerSecond)} tasks/s (median of 3)` },
      { name: "10,000 children", value: f10k.ms, unit: "ms", note: `${fmt(f10k.tasksPerSecond)} tasks/s` },
    ]);
  } finally {
    for (const s of [schema, `${schema}_engine`, `${schema}_fanout`]) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => {});
    await admin.end();
    await cluster?.stop();
  }
}
