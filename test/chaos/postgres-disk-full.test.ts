/**
 * Disk full on Postgres: the Sluice database lives in a tablespace on a small tmpfs (mounted by the
 * test, which needs root, and owned by the `postgres` user the cluster runs as), filled to the last
 * byte twice for 3 s while two workers run, then freed. (The WAL stays on the cluster's own volume:
 * a full WAL volume makes Postgres itself stop — PANIC — which the immediate-restart rows cover.)
 * While full, `/api/ready` answers 503 ("the disk is full") and `sluice enqueue` fails with a clear
 * message, non-zero, and creates nothing. After: `/api/ready` is
 * ready, every run finishes once, nothing lost, stuck, failed or wrong, workers up. Ends with the invariant query.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { type Cluster, startCluster } from "../../bench/pg-cluster.js";
import { spawnSluice } from "../helpers/processes.js";
import { withDatabase } from "../helpers/postgres.js";
import { delay, eventually } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

const mountPoint = mkdtempSync(join(tmpdir(), "sluice-chaos-pgfull-"));
let mounted = false;
let cluster: Cluster | null = null;
afterAll(async () => {
  await cluster?.stop();
  if (mounted) execFileSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes `path` until the file system is full (the last partial block too); returns the bytes written. */
function fill(path: string): number {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let bytes = 0;
  try {
    for (;;) {
      try {
        bytes += writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOSPC") break;
        throw err;
      }
    }
    for (let n = 4096; n >= 1; n = Math.floor(n / 2)) {
      try {
        bytes += writeSync(fd, chunk.subarray(0, n));
      } catch {
        /* full at this size: try smaller */
      }
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

interface Ready {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
}

it("disk full on Postgres: the database's tablespace filled twice for 3 s while 2 workers run", async () => {
  const started = Date.now();
  cluster = await startCluster();
  const uid = execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim();
  const gid = execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim();
  // Needs root (mount); a refusal fails here with mount's own message.
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=32m,mode=0700,uid=${uid},gid=${gid}`, "tmpfs", mountPoint]);
  mounted = true;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE TABLESPACE chaos_full LOCATION '${mountPoint}'`);
  await admin.query("CREATE DATABASE chaos_full TABLESPACE chaos_full");
  await admin.end();
  const db = withDatabase(cluster.url, "chaos_full");
  const p = await chaosProject("postgres", {}, { db });
  const ids = await enqueueLedgerRuns(p, "pgfull", 200, 3, 100);
  const server = spawnSluice(["server", "--port", "0", "--workers", "none", "--scheduler-tick", "200ms"], p.root, {
    SLUICE_DATABASE_URL: db,
  });
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  await Promise.all([server, ...workers].map((w) => w.waitFor(/ready/, 30_000)));
  const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
  const ready = async () => {
    const res = await fetch(`${url}/api/ready`);
    return { status: res.status, body: (await res.json()) as Ready };
  };
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);

  let fills = 0;
  let whileBusy = 0;
  let notReady = 0;
  const readyDetails: string[] = [];
  let refusedEnqueues = 0;
  const enqueueOutputs: string[] = [];
  for (let i = 0; i < 2; i++) {
    if ((await p.store.countRuns({ status: ["pending", "running"] })) > 0) whileBusy++;
    const filler = join(mountPoint, "filler");
    fill(filler);
    fills++;
    const until = Date.now() + 3_000;
    // The readiness probe's write needs a new page (`store/postgres/ready-probe.ts`): a full
    // tablespace makes the server not ready, saying why.
    const down = await eventually(async () => {
      const r = await ready();
      return r.status === 503 ? r : null;
    }, 2_000).catch(() => null);
    if (down && /53100.*disk is full/.test(down.body.checks.write?.detail ?? "")) notReady++;
    readyDetails.push(down ? down.body.checks.write!.detail : "stayed ready");
    // An enqueue by a user is refused with the reason, non-zero, and creates nothing.
    // Its payload (90 KB that do not compress) needs new pages: a small row can still fit in a page's
    // free space on a full disk, and Postgres then rightly accepts it.
    const pad = randomBytes(67_500).toString("base64");
    const enq = spawnSluice(["enqueue", "ledger", JSON.stringify({ steps: 3, pad }), "--id", `refused-${i}`], p.root, {
      SLUICE_DATABASE_URL: db,
    });
    const code = await enq.exited;
    enqueueOutputs.push(enq.output());
    if (code !== 0 && /disk is full/.test(enq.output())) refusedEnqueues++;
    await delay(Math.max(0, until - Date.now()));
    rmSync(filler);
    await delay(1_000);
  }
  await untilFinished(p.store, ids, 90_000);
  const back = await eventually(async () => {
    const r = await ready();
    return r.status === 200 ? r : null;
  }, 20_000).catch(() => null);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  const refusedRuns = (await p.store.getRuns(["refused-0", "refused-1"])).length;
  await stopAll([...workers, server]);
  const output = workers.map((w) => w.output()).join("");
  for (const w of workers)
    if (w.proc.exitCode !== null && w.proc.exitCode !== 0)
      console.log(`worker exited ${w.proc.exitCode}:\n${w.output().slice(-3000)}`);
  console.log(`sluice enqueue on the full disk said: ${enqueueOutputs[0]}`);
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "disk full (Postgres tablespace on a full tmpfs)",
      "postgres",
      `${fills} fills of 3 s (${whileBusy} with runs unfinished), ${alive}/2 workers up after, ${(output.match(/disk is full/g) ?? []).length} "disk is full" reports, /api/ready 503 in ${notReady}/${fills}, ${refusedEnqueues}/${fills} enqueues refused with "disk is full" (${refusedRuns} created)`,
      inv,
      started,
    ),
  );
  expect(whileBusy).toBe(2);
  expect(refusedEnqueues, enqueueOutputs.join("\n----\n")).toBe(2);
  expect(refusedRuns).toBe(0);
  expect(notReady, readyDetails.join("\n")).toBe(fills);
  expect(back).not.toBeNull();
  expect(alive).toBe(2);
  expect(output).toMatch(/disk is full/);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
  expect(output).not.toMatch(/unhandled|TypeError/);
});
