/**
 * SIGKILL at each named boundary on SQLite and Postgres, through the test-only hook `SLUICE_TEST_CRASH_AT`
 * (`src/core/crash-points.ts`): five workers in a row (one slot each) kill themselves the first
 * time they reach the point, then a plain worker finishes the work. Each ends with the invariant
 * query, and checks the repeats the boundary implies: a crash before the checkpoint commit repeats
 * exactly the step that was running, a crash after it repeats nothing.
 */
import { describe, expect, it } from "vitest";
import type { CrashPoint } from "../../src/worker/crash-points.js";
import {
  chaosProject,
  checkLedgerRuns,
  enqueueLedgerRuns,
  record,
  rowOf,
  type StoreKind,
  stopAll,
  untilFinished,
} from "./harness.js";

/** Per point: the step bodies each crash repeats (exactly, or at most for `before-renewal`). */
const POINTS: Array<{ point: CrashPoint; repeats: number; exact: boolean; ms: number }> = [
  { point: "after-claim", repeats: 0, exact: true, ms: 0 },
  { point: "after-step-body", repeats: 1, exact: true, ms: 0 },
  { point: "before-checkpoint-commit", repeats: 1, exact: true, ms: 0 },
  { point: "after-checkpoint-commit", repeats: 0, exact: true, ms: 0 },
  // A renewal comes every third of the lease; 500 ms steps make it fall inside a body, mostly.
  { point: "before-renewal", repeats: 1, exact: false, ms: 500 },
];

const CRASHES = 5;

for (const kind of ["sqlite", "postgres"] as StoreKind[])
  describe(`SIGKILL at each boundary (test-only hook) on ${kind}`, () => {
    for (const { point, repeats, exact, ms } of POINTS) {
      it(`crash ${point}`, async () => {
        const started = Date.now();
        const p = await chaosProject(kind);
        const ids = await enqueueLedgerRuns(p, point, 10, 3, ms);
        const exits: Array<number | string> = [];
        for (let i = 0; i < CRASHES; i++) {
          const w = p.worker(["--concurrency", "1"], { SLUICE_TEST_CRASH_AT: point });
          exits.push(
            await Promise.race([w.exited, new Promise<string>((r) => setTimeout(() => r("no crash in 30 s"), 30_000))]),
          );
          await stopAll([w]);
        }
        const finisher = p.worker(["--concurrency", "10"]);
        await untilFinished(p.store, ids, 60_000);
        await stopAll([finisher]);
        const inv = await checkLedgerRuns(p, ids, 3);
        record(
          rowOf(
            `SIGKILL ${point} (test hook)`,
            kind,
            `${exits.filter((e) => e === "SIGKILL").length} crashes at the point`,
            inv,
            started,
          ),
        );
        expect(exits).toEqual(Array.from({ length: CRASHES }, () => "SIGKILL"));
        expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
        expect(inv.succeeded).toBe(ids.length);
        if (exact) expect(inv.duplicateEffects).toBe(repeats * CRASHES);
        else expect(inv.duplicateEffects).toBeLessThanOrEqual(repeats * CRASHES);
      });
    }
  });
