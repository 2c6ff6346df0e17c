/**
 * An immediate restart of the Postgres shared by several servers: two `sluice server` processes
 * (each with its scheduler, API and the lane workers it starts, default lease) on one database;
 * the cluster stopped with `pg_ctl stop -m immediate` and started again (crash recovery) twice
 * while runs execute, and more runs enqueued after each restart. Both servers must keep going
 * (no exit, `/api/ready` ready again, one scheduler leader), every run finish once, and no step
 * body run twice. Ends with the invariant query.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../../bench/pg-cluster.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { sql, withDatabase } from "../helpers/postgres.js";
import { delay, eventually } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

let cluster: Cluster | null = null;
afterAll(async () => {
  await cluster?.stop();
});

interface Ready {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
}

async function readyOf(url: string): Promise<Ready | null> {
  try {
    const res = await fetch(`${url}/api/ready`);
    return (await res.json()) as Ready;
  } catch {
    return null;
  }
}

function apiUrl(server: SluiceProcess): string {
  return /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
}

it("immediate restart of the Postgres shared by 2 servers: both keep going, every run once", async () => {
  const started = Date.now();
  cluster = await startCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query("CREATE DATABASE chaos_shared");
  await admin.end();
  const db = withDatabase(cluster.url, "chaos_shared");
  const p = await chaosProject("postgres", {}, { db });
  const server = () =>
    spawnSluice(["server", "--port", "0", "--scheduler-tick", "200ms", "--lane-concurrency", "50"], p.root, {
      SLUICE_DATABASE_URL: db,
      CHAOS_LEDGER: p.ledgerFile,
    });
  const servers = [server(), server()];
  await Promise.all(servers.map((s) => s.waitFor(/server \d+ ready/, 30_000)));
  const urls = servers.map(apiUrl);
  const ids = await enqueueLedgerRuns(p, "shared-0", 300, 3, 600);
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);

  let restarts = 0;
  let whileBusy = 0;
  let downMs = 0;
  for (let i = 1; i <= 2; i++) {
    await delay(500);
    if ((await p.store.countRuns({ status: ["pending", "running"] }).catch(() => 0)) > 0) whileBusy++;
    const t = Date.now();
    await cluster.restartImmediate();
    downMs += Date.now() - t;
    restarts++;
    // Work enqueued after the restart is taken up too (the servers' lanes reconnect or restart).
    ids.push(...(await enqueueLedgerRuns(p, `shared-${i}`, 100, 3, 600)));
  }
  await untilFinished(p.store, ids, 120_000);
  // Both servers answer and are ready again, with exactly one scheduler leader between them.
  const states = await eventually(async () => {
    const r = await Promise.all(urls.map(readyOf));
    if (!r.every((x) => x?.ready)) return null;
    const leaders = r.filter((x) => x!.checks.scheduler?.detail === "leader").length;
    return leaders === 1 ? r : null;
  }, 30_000).catch(() => null);
  const alive = servers.filter((s) => s.proc.exitCode === null && s.proc.signalCode === null).length;
  await stopAll(servers);
  for (const s of servers)
    if (s.proc.exitCode !== null) console.log(`server exited ${s.proc.exitCode}:\n${s.output().slice(-3000)}`);
  const inv = await checkLedgerRuns(p, ids, 3);
  const [steps] = await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM steps WHERE status = 'done'");
  const output = servers.map((s) => s.output()).join("");
  // What the operator saw (the lane workers' messages are relayed by their server).
  const reports = (output.match(/cannot be reached; retrying/g) ?? []).length;
  record(
    rowOf(
      "immediate restart of the Postgres shared by 2 servers",
      "postgres",
      `${restarts} restarts -m immediate (${whileBusy} with runs unfinished, ${(downMs / restarts / 1000).toFixed(1)} s down each), ${alive}/2 servers up and ${states ? "both" : "not both"} ready after, one leader; ${reports} "cannot be reached; retrying" reports`,
      inv,
      started,
    ),
  );
  expect(whileBusy).toBe(2);
  expect(alive).toBe(2);
  expect(states).not.toBeNull();
  expect(steps!.n).toBe(ids.length * 3);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0, duplicateEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
  expect(output).not.toMatch(/unhandled|uncaught|crashed the executor|TypeError/i);
});
