/**
 * Postgres server faults: the server crash-restarted (`pg_ctl stop -m immediate`, then started
 * again: crash recovery) while workers run, and commits whose answer is lost (a TCP proxy drops
 * the connection right before the client gets `CommandComplete` for a `COMMIT` the server has
 * done). Each ends with the invariant query: nothing lost, stuck, failed, wrong or recorded twice.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../../bench/pg-cluster.js";
import { postgresAdminUrl, sql, testDatabase, withDatabase } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";
import { startCommitDropProxy } from "./commit-drop-proxy.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

let cluster: Cluster | null = null;
afterAll(async () => {
  await cluster?.stop();
});

it("immediate Postgres restart: the server crash-restarted twice while 2 workers run", async () => {
  const started = Date.now();
  // A cluster of its own (the shared one is not restarted under other tests), with Postgres'
  // durable defaults: the restart runs real crash recovery from the WAL.
  cluster = await startCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query("CREATE DATABASE chaos_restart");
  await admin.end();
  const p = await chaosProject("postgres", {}, { db: withDatabase(cluster.url, "chaos_restart") });
  const ids = await enqueueLedgerRuns(p, "restart", 600, 3, 200);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);
  let restarts = 0;
  let whileBusy = 0;
  let downMs = 0;
  for (let i = 0; i < 2; i++) {
    await delay(1_500);
    if ((await p.store.countRuns({ status: ["pending", "running"] }).catch(() => 0)) > 0) whileBusy++;
    const t = Date.now();
    await cluster.restartImmediate();
    downMs += Date.now() - t;
    restarts++;
  }
  await untilFinished(p.store, ids, 120_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "immediate Postgres restart",
      "postgres",
      `${restarts} restarts -m immediate (${whileBusy} with runs unfinished, ${(downMs / restarts / 1000).toFixed(1)} s down each), ${alive}/2 workers up after`,
      inv,
      started,
    ),
  );
  expect(whileBusy).toBe(2);
  expect(alive).toBe(2);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});

it("a commit whose answer is lost: 12 COMMIT answers dropped by a proxy between the workers and Postgres", async () => {
  const started = Date.now();
  const db = await testDatabase("chaos");
  const server = new URL(postgresAdminUrl());
  const proxy = await startCommitDropProxy(server.hostname, Number(server.port));
  const through = new URL(db);
  through.port = String(proxy.port);
  // The test reads the store directly; only the workers go through the proxy.
  const p = await chaosProject("postgres", {}, { db, workerDb: through.toString() });
  const ids = await enqueueLedgerRuns(p, "commit", 400, 3, 100);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);
  // One drop armed every 200 ms, once the previous one happened, while runs are unfinished.
  const target = 12;
  let whileBusy = 0;
  const until = Date.now() + 40_000;
  while (proxy.dropped() < target && Date.now() < until) {
    const before = proxy.dropped();
    if ((await p.store.countRuns({ status: ["pending", "running"] })) === 0) break;
    whileBusy++;
    proxy.arm(1);
    while (proxy.dropped() === before && Date.now() < until) await delay(20);
    await delay(200);
  }
  await untilFinished(p.store, ids, 90_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  await proxy.close();
  const inv = await checkLedgerRuns(p, ids, 3);
  // A result written twice would show as a step row too many or a second value: one row per step, each done.
  const steps = await sql<{ n: string }>(db, "SELECT count(*) AS n FROM steps WHERE status = 'done'");
  record(
    rowOf(
      "commit answer lost (proxy drops the connection after COMMIT)",
      "postgres",
      `${proxy.dropped()} COMMIT answers dropped (${whileBusy} armed with runs unfinished), ${alive}/2 workers up after`,
      inv,
      started,
    ),
  );
  expect(proxy.dropped()).toBe(target);
  expect(whileBusy).toBe(target);
  expect(alive).toBe(2);
  expect(Number(steps[0]!.n)).toBe(ids.length * 3);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});
