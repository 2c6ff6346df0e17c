/**
 * Clock skew on SQLite (where the workers' own clocks decide due times and lease expiry; on
 * Postgres the server's clock decides): two workers, one whose clock runs 5 s ahead (lease 1 s).
 * The skewed clock is a `Date.now` offset preloaded into that worker process (`--import`): a
 * container cannot give one process its own system clock. Ends with the invariant query.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

const SKEW_MS = 5_000;

it(`clock skew: one of 2 workers ${SKEW_MS / 1000} s ahead (lease 1 s)`, async () => {
  const started = Date.now();
  const p = await chaosProject("sqlite", {
    "skew.mjs": `const now = Date.now;\nDate.now = () => now() + ${SKEW_MS};\n`,
  });
  const ahead = `--import=${pathToFileURL(join(p.root, "skew.mjs")).href}`;
  const ids = await enqueueLedgerRuns(p, "skew", 200, 3, 100);
  const workers = [
    p.worker(["--concurrency", "20"]),
    p.worker(["--concurrency", "20"], { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${ahead}`.trim() }),
  ];
  await untilFinished(p.store, ids, 120_000);
  const alive = workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(workers);
  const runs = await p.store.getRuns(ids);
  const maxAttempt = Math.max(...runs.map((r) => r.attempt));
  const inv = await checkLedgerRuns(p, ids, 3);
  for (const w of workers)
    if (w.proc.exitCode !== null) console.log(`worker exited ${w.proc.exitCode}: ${w.output().slice(-2000)}`);
  record(
    rowOf(
      "clock skew between two workers",
      "sqlite",
      `one worker ${SKEW_MS / 1000} s ahead, ${alive}/2 workers up after, highest attempt ${maxAttempt}`,
      inv,
      started,
    ),
  );
  expect(alive).toBe(2);
  // The skew was in effect: the worker ahead took over leases the other still held.
  expect(maxAttempt).toBeGreaterThan(1);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});
