/**
 * 10,000 timers due in the same second: 10,000 one-step runs parked with the same `ready_at`,
 * two workers idle and waiting. Records the spread from the first start to the last and the delay
 * of the first start after the due time; checks none starts early and nothing is lost or stuck.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sql } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, record, rowOf, type StoreKind, stopAll, untilFinished } from "./harness.js";

const TIMERS = 10_000;

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  describe(`timers on ${kind}`, () => {
    it(`${TIMERS} timers due in the same second, 2 workers`, async () => {
      const started = Date.now();
      const p = await chaosProject(kind);
      const { createEngine } = await import("../../src/engine/engine.js");
      const { defineWorkflow } = await import("../../src/sdk/workflow.js");
      const ledger = defineWorkflow("ledger", { retries: 20, handler: async () => undefined });
      const engine = createEngine({ store: p.store, worker: false, scheduler: false, captureConsole: false });
      // Parked an hour out first (enqueueing 10,000 runs takes a while here), then all moved to one instant.
      const ids: string[] = [];
      for (let i = 0; i < TIMERS; i += 500) {
        const handles = await engine.enqueueMany(
          ledger,
          Array.from({ length: Math.min(500, TIMERS - i) }, () => ({ steps: 1 })),
          { runAt: Date.now() + 3_600_000 },
        );
        ids.push(...handles.map((h) => h.id));
      }
      const workers = [p.worker(["--concurrency", "200"]), p.worker(["--concurrency", "200"])];
      // Let both workers start and go idle before the timers fall due.
      await delay(6_000);
      const due = Date.now() + 3_000;
      if (kind === "sqlite") {
        const db = new Database(p.db, { timeout: 10_000 });
        db.prepare("UPDATE runs SET ready_at = ? WHERE status = 'pending'").run(due);
        db.close();
      } else {
        await sql(p.db, "UPDATE runs SET ready_at = $1 WHERE status = 'pending'", [due]);
      }
      await untilFinished(p.store, ids, 150_000);
      await stopAll(workers);
      const runs = await p.store.getRuns(ids);
      const starts = runs.map((r) => r.startedAt).filter((t): t is number => t !== null);
      const first = Math.min(...starts);
      const last = Math.max(...starts);
      const spreadMs = last - first;
      const lateMs = first - due;
      const inv = await checkLedgerRuns(p, ids, 1);
      const target = spreadMs <= 1_000 ? "met" : "NOT met";
      record(
        rowOf(
          `${TIMERS.toLocaleString("en")} timers due in the same second`,
          kind,
          `2 workers × 200 slots; first start ${lateMs} ms after due, last ${(spreadMs / 1000).toFixed(1)} s after the first (issue's 1 s: ${target})`,
          inv,
          started,
        ),
      );
      console.log(`${kind}: first start ${lateMs} ms after due; spread ${spreadMs} ms over ${starts.length} starts`);
      expect(starts.length).toBe(TIMERS);
      // Never early (SQLite's claim compares with the worker's clock, Postgres' with the server's: same machine).
      expect(first).toBeGreaterThanOrEqual(due);
      // Bounded: all start within 30 s of each other. The issue asks for 1 s; here (2 shared cores)
      // the spread is the claim throughput of 2 workers (3–11 s), recorded in the row and in
      // docs/RELIABILITY.md as not met rather than asserted away.
      expect(spreadMs).toBeLessThan(30_000);
      expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
    });
  });
}
