/**
 * 10,000 timers due in the same second: 10,000 one-step runs parked with the same `ready_at`,
 * two workers idle and waiting, with slots for the whole burst (2 x 5,000: a run holds its slot
 * from its claim to its completion, so with fewer slots the later runs wait for earlier ones to
 * finish; `npm run bench -- --timers` measures 2 x 200 and 2 x 500 too). A run has started when it
 * is claimed and its body has begun (its step's `started_at`, on the claim's clock: the claim
 * transaction's time plus the time since its answer arrived, so a slow answer to a big claim is
 * left out; `npm run bench -- --timers` reads the bodies' wall clock). Records the spread from the first
 * claim to the last body start and the delay of the first start after the due time; checks none
 * starts early and nothing is lost or stuck.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sql } from "../helpers/postgres.js";
import { query } from "./clock-preload.js";
import { delay } from "../helpers/tmp.js";
import { chaosProject, checkLedgerRuns, record, rowOf, type StoreKind, stopAll, untilFinished } from "./harness.js";

const TIMERS = 10_000;
const SLOTS = 5_000;

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  describe(`timers on ${kind}`, () => {
    it(`${TIMERS} timers due in the same second, 2 workers x ${SLOTS} slots`, async () => {
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
      // The default 30 s lease, not the matrix's 1 s: no fault here needs a lease to expire, and a
      // worker starting 5,000 runs at once renews 1 s leases too late (with 1 s: takeovers and
      // 1,570–2,942 repeated step bodies, and the last body start 10–37 s after the first claim).
      const args = ["--concurrency", String(SLOTS), "--lease", "30s"];
      const workers = [p.worker(args), p.worker(args)];
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
      const lateMs = first - due;
      // The body's real start: the started_at its one step's checkpoint records (on the claim's clock).
      const [bodies] = await query<{ n: number | string; last: number | string }>(
        kind,
        p.db,
        "SELECT count(*) AS n, max(started_at) AS last FROM steps WHERE key = 's0'",
      );
      const bodyStarts = Number(bodies!.n);
      const spreadMs = Number(bodies!.last) - first;
      const claimSpreadMs = Math.max(...starts) - first;
      const inv = await checkLedgerRuns(p, ids, 1);
      const target = spreadMs <= 1_000 ? "met" : "NOT met";
      record(
        rowOf(
          `${TIMERS.toLocaleString("en")} timers due in the same second`,
          kind,
          `2 workers × ${SLOTS.toLocaleString("en")} slots; first claim ${lateMs} ms after due, last body start ${spreadMs} ms after it on the claim's clock (claims over ${claimSpreadMs} ms; issue 15's 1 s: ${target}; the claim's clock leaves out how long a claim took to answer: the bench reads the bodies' wall clock)`,
          inv,
          started,
        ),
      );
      console.log(
        `${kind}: first claim ${lateMs} ms after due; last body start ${spreadMs} ms after it (claims over ${claimSpreadMs} ms)`,
      );
      expect(starts.length).toBe(TIMERS);
      expect(bodyStarts).toBe(TIMERS);
      // Never early (SQLite's claim compares with the worker's clock, Postgres' with the server's: same machine).
      expect(first).toBeGreaterThanOrEqual(due);
      // Bounded: all start within 30 s of each other. Issue 15 asks for 1 s, judged by the bench on
      // this machine (docs/RELIABILITY.md); a test on 2 shared cores records it in the row rather
      // than asserting a timing.
      expect(spreadMs).toBeLessThan(30_000);
      expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
    });
  });
}
