/**
 * `npm run bench -- --db postgres`: the engine benchmarks on Postgres, beside the
 * same run's raw single-row commit rate of that server. `--db postgres` starts a
 * throwaway embedded cluster with durable settings (fsync and synchronous_commit
 * on); `--db postgres://…` benchmarks an existing server in a scratch schema that
 * is dropped afterwards.
 */
import pg from "pg";
import { openBenchEngine } from "./engine-bench.js";
import { openFanoutEngine } from "./fanout-bench.js";
import { HOT_TARGETS, hotFigures } from "./hot-bench.js";
import { startCluster } from "./pg-cluster.js";
import { printFigures } from "./report.js";
import { engineFigures, fanoutFigures } from "./suite.js";

/** Single-row INSERT commits per second from one connection, for `ms` milliseconds. */
export async function rawPostgresCommitsPerSecond(url: string, schema: string, ms = 2_000): Promise<number> {
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
    const { rows } = await c.query(
      "SELECT current_setting('server_version') AS v, current_setting('fsync') AS f, current_setting('synchronous_commit') AS s",
    );
    return `Postgres ${rows[0].v}, fsync=${rows[0].f}, synchronous_commit=${rows[0].s}`;
  } finally {
    await c.end();
  }
}

/** Runs every engine benchmark against Postgres (`setting` is `postgres` or a URL). */
export async function postgresBench(setting: string, dir: string, opts: { hotOnly?: boolean } = {}): Promise<void> {
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
    printFigures("machine limit", [
      { name: "raw Postgres single-row commits (one connection, autocommit)", value: raw, unit: "commits/s" },
    ]);

    if (opts.hotOnly) {
      const figures = await hotFigures(dir, HOT_TARGETS.postgres, (name) =>
        withSchema(`${schema}_${name.replace("-", "_")}`),
      );
      for (const name of ["hot_wide", "hot_narrow"])
        await admin.query(`DROP SCHEMA IF EXISTS ${schema}_${name} CASCADE`);
      return printFigures("hot path on Postgres (issue 15)", figures);
    }
    // Targets of issue 5 (Postgres, 2 cores): steps/s >= 3x raw and p50 < 10 ms.
    const targets = { p50Ms: 10 };
    const engine = await openBenchEngine(dir, "engine", withSchema(`${schema}_engine`));
    printFigures("engine on Postgres (embedded worker)", await engineFigures(engine, raw, targets));
    await engine.stop();

    const fan = await openFanoutEngine(dir, withSchema(`${schema}_fanout`));
    printFigures(
      "workflows as code on Postgres: one workflow, N parallel child tasks summed (embedded worker, 500 slots)",
      await fanoutFigures(fan, targets),
    );
    await fan.stop();
  } finally {
    for (const s of [schema, `${schema}_engine`, `${schema}_fanout`])
      await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => {});
    await admin.end();
    await cluster?.stop();
  }
}
