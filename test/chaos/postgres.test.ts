/**
 * Postgres faults: every Sluice connection to the database terminated (`pg_terminate_backend`)
 * every 300 ms while workers run; the work finishes, nothing lost, stuck or wrong.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { postgresAdminUrl } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, enqueueLedgerRuns, record, rowOf, stopAll, untilFinished } from "./harness.js";

it("pg_terminate_backend storm: all of Sluice's connections killed every 300 ms for 10 s", async () => {
  const started = Date.now();
  const p = await chaosProject("postgres");
  const database = new URL(p.db).pathname.slice(1);
  const ids = await enqueueLedgerRuns(p, "term", 200, 4, 200);
  const workers = [p.worker(["--concurrency", "20"]), p.worker(["--concurrency", "20"])];
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  let terminated = 0;
  let whileBusy = 0;
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const unfinished = await p.store.countRuns({ status: ["pending", "running"] }).catch(() => 1);
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [database],
    );
    terminated += rows.filter((r) => r.ok).length;
    if (unfinished > 0) whileBusy++;
    await delay(300);
  }
  await admin.end();
  await untilFinished(p.store, ids, 90_000);
  await stopAll(workers);
  const inv = await checkLedgerRuns(p, ids, 4);
  record(
    rowOf(
      "pg_terminate_backend storm",
      "postgres",
      `${terminated} connections terminated (${whileBusy} rounds with runs unfinished)`,
      inv,
      started,
    ),
  );
  expect(terminated).toBeGreaterThan(20);
  expect(whileBusy).toBeGreaterThan(5);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
});
