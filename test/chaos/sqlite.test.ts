/**
 * SQLite file faults: another process holding `BEGIN EXCLUSIVE` on the database while two
 * workers run. Ends with the invariant query: nothing lost, stuck, failed or wrong; the workers
 * wait (busy timeout) or log and retry, and stay up.
 */
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { REPO } from "../helpers/project.js";
import { delay } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

/**
 * Holds an exclusive lock on `db` from a separate Node process (better-sqlite3, as another
 * program on the machine would) for `ms`; resolves with how long the lock was held.
 */
function holdExclusive(db: string, ms: number): Promise<number> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1], { timeout: 30000 });
    db.exec("BEGIN EXCLUSIVE");
    const t = Date.now();
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); process.stdout.write("held " + (Date.now() - t) + "\\n"); }, ${ms});
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", script, db], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => {
      const held = /held (\d+)/.exec(out);
      if (code === 0 && held) resolve(Number(held[1]));
      else reject(new Error(`lock holder exited with ${code}: ${out}`));
    });
  });
}

it("SQLite file locked by another process: 4 exclusive locks of 3 s while 2 workers run", async () => {
  const started = Date.now();
  const p = await chaosProject("sqlite");
  // Steps of 150 ms: a worker waiting for the lock keeps running its step bodies (the wait is on
  // its event loop), so the work must last past the third lock for the locks to meet it.
  const ids = await enqueueLedgerRuns(p, "lock", 400, 3, 150);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  let locks = 0;
  let heldMs = 0;
  let whileBusy = 0;
  // Wait until work is flowing, then lock the file 4 times for 3 s with 1 s gaps.
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);
  for (let i = 0; i < 4; i++) {
    if ((await p.store.countRuns({ status: ["pending", "running"] })) > 0) whileBusy++;
    heldMs += await holdExclusive(p.db, 3_000);
    locks++;
    await delay(1_000);
  }
  await untilFinished(p.store, ids, 90_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "SQLite file locked by another process",
      "sqlite",
      `${locks} BEGIN EXCLUSIVE of ${(heldMs / locks / 1000).toFixed(1)} s (${whileBusy} with runs unfinished)`,
      inv,
      started,
      { note: `${alive}/2 workers up at the end` },
    ),
  );
  expect(whileBusy).toBeGreaterThanOrEqual(3);
  expect(alive).toBe(2);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
  expect(workers.map((w) => w.output()).join("")).not.toMatch(/unhandled|TypeError/);
});

it("SQLite file locked longer than the busy timeout (10 s): one exclusive lock of 14 s while 2 workers run", async () => {
  const started = Date.now();
  const p = await chaosProject("sqlite");
  const ids = await enqueueLedgerRuns(p, "longlock", 200, 3, 50);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);
  const busy = await p.store.countRuns({ status: ["pending", "running"] });
  const heldMs = await holdExclusive(p.db, 14_000);
  await untilFinished(p.store, ids, 120_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  const output = workers.map((w) => w.output()).join("");
  const reports = output.match(/SQLITE_BUSY/g)?.length ?? 0;
  for (const w of workers)
    if (w.proc.exitCode !== null) console.log(`worker exited ${w.proc.exitCode}: ${w.output().slice(-2000)}`);
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "SQLite lock held past the busy timeout",
      "sqlite",
      `1 BEGIN EXCLUSIVE of ${(heldMs / 1000).toFixed(1)} s (${busy} runs unfinished when it began)`,
      inv,
      started,
      { note: `${alive}/2 workers up at the end, ${reports} "database is locked" reports` },
    ),
  );
  // The lock outlasted the busy timeout: writers were refused and said so, then retried.
  expect(reports).toBeGreaterThan(0);
  expect(busy).toBeGreaterThan(0);
  expect(alive).toBe(2);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
  expect(output).not.toMatch(/unhandled|TypeError/);
});

it("a worker started while another process holds the lock past the busy timeout waits, then works", async () => {
  const started = Date.now();
  const p = await chaosProject("sqlite");
  const ids = await enqueueLedgerRuns(p, "startlock", 50, 3);
  // Lock first (25 s: every start-up write waits out the 10 s busy timeout at least once), then start the worker.
  const lock = holdExclusive(p.db, 25_000);
  await delay(1_000);
  const worker = p.worker(["--concurrency", "20"]);
  const heldMs = await lock;
  await untilFinished(p.store, ids, 60_000);
  const alive = worker.proc.exitCode === null && worker.proc.signalCode === null;
  await stopAll([worker]);
  const output = worker.output();
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "worker started during a lock past the busy timeout",
      "sqlite",
      `1 BEGIN EXCLUSIVE of ${(heldMs / 1000).toFixed(1)} s, the worker started 1 s into it`,
      inv,
      started,
      { note: alive ? "worker up after, retried its start-up" : `worker exited: ${output.slice(-300)}` },
    ),
  );
  expect(output).toMatch(/failed \(database error \(SQLITE_BUSY: database is locked\).*; retrying in/);
  expect(alive).toBe(true);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0, duplicateEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});
