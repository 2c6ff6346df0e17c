/**
 * Disk full: the SQLite database on a small tmpfs (mounted by the test, which needs root), filled
 * to the last byte by another file twice for 3 s while two workers run, then freed. Ends with the
 * invariant query: nothing lost, stuck, failed or wrong; the workers report and retry, stay up.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { delay } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

const mountPoint = mkdtempSync(join(tmpdir(), "sluice-chaos-full-"));
let mounted = false;
afterAll(() => {
  if (mounted) execFileSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes `path` until the file system is full; returns the bytes written. */
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
    // The last partial block.
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

it("disk full: the SQLite file's tmpfs filled twice for 3 s while 2 workers run", async () => {
  const started = Date.now();
  // Needs root (mount); a refusal fails here with mount's own message.
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint]);
  mounted = true;
  const p = await chaosProject("sqlite", {}, { db: join(mountPoint, "sluice.db") });
  const ids = await enqueueLedgerRuns(p, "full", 200, 3, 100);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  // Both workers up before the disk fills (a worker starting on a full disk is another case: see below).
  await Promise.all(workers.map((w) => w.waitFor(/ready/, 30_000)));
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);
  let fills = 0;
  let whileBusy = 0;
  for (let i = 0; i < 2; i++) {
    if ((await p.store.countRuns({ status: ["pending", "running"] })) > 0) whileBusy++;
    const filler = join(mountPoint, "filler");
    fill(filler);
    fills++;
    await delay(3_000);
    rmSync(filler);
    await delay(1_000);
  }
  await untilFinished(p.store, ids, 90_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  const output = workers.map((w) => w.output()).join("");
  // A worker that exited: its last words go into the test output.
  for (const w of workers)
    if (w.proc.exitCode !== null && w.proc.exitCode !== 0)
      console.log(`worker exited ${w.proc.exitCode}:\n${w.output().slice(-3000)}`);
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "disk full (SQLite on a full tmpfs)",
      "sqlite",
      `${fills} fills of 3 s (${whileBusy} with runs unfinished), ${alive}/2 workers up after, ${(output.match(/disk is full/g) ?? []).length} "disk is full" reports`,
      inv,
      started,
    ),
  );
  expect(whileBusy).toBe(2);
  expect(alive).toBe(2);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
  expect(output).not.toMatch(/unhandled|TypeError/);
});
