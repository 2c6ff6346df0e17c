/**
 * Process faults on both stores: SIGKILL storms on workers, a worker stopped (SIGSTOP) past its
 * lease and continued, and 8 workers racing for the same runs. Each ends with the invariant
 * query: nothing lost, stuck, failed or wrong; duplicated side effects counted.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/store/types.js";
import type { SluiceProcess } from "../helpers/processes.js";
import { delay } from "../helpers/tmp.js";
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

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  describe(`process faults on ${kind}`, () => {
    it("SIGKILL storm: two workers, one killed every 300–700 ms and restarted", async () => {
      const started = Date.now();
      const p = await chaosProject(kind);
      // 20 runs at a time per worker, 100 ms per step: the work spans the whole storm.
      const ids = await enqueueLedgerRuns(p, "storm", kind === "sqlite" ? 400 : 200, 4, 100);
      const start = () => p.worker(["--concurrency", "20"]);
      const workers: SluiceProcess[] = [start(), start()];
      const all = [...workers];
      let kills = 0;
      let inFlight = 0;
      // 15 kills, each once runs are in flight (a worker starting up on a busy machine is not
      // killed before it claims anything), 100–500 ms into the work.
      while (kills < 15) {
        const busy = await untilRunning(p.store, 20_000);
        if (!busy) break;
        await delay(100 + Math.random() * 400);
        const i = Math.floor(Math.random() * workers.length);
        if ((await p.store.countRuns({ status: ["running"] })) > 0) inFlight++;
        workers[i]!.proc.kill("SIGKILL");
        await workers[i]!.exited;
        kills++;
        workers[i] = start();
        all.push(workers[i]!);
      }
      await untilFinished(p.store, ids, 90_000);
      await stopAll(all);
      const inv = await checkLedgerRuns(p, ids, 4);
      record(
        rowOf("SIGKILL storm on workers", kind, `${kills} SIGKILLs (${inFlight} with runs in flight)`, inv, started),
      );
      expect(inFlight).toBeGreaterThanOrEqual(10);
      expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
      expect(inv.succeeded).toBe(ids.length);
    });

    it("SIGSTOP past the lease: another worker takes over, the stopped one's writes are fenced when it continues", async () => {
      const started = Date.now();
      const p = await chaosProject(kind);
      const ids = await enqueueLedgerRuns(p, "stop", 20, 3, 400);
      const a = p.worker();
      // Stop A once it is inside step bodies, for 3 s (lease 1 s).
      await untilLedger(p, 1);
      a.proc.kill("SIGSTOP");
      const b = p.worker();
      await delay(3_000);
      a.proc.kill("SIGCONT");
      await untilFinished(p.store, ids, 60_000);
      await stopAll([a, b]);
      const inv = await checkLedgerRuns(p, ids, 3);
      record(rowOf("SIGSTOP past the lease", kind, "1 stop of 3 s (lease 1 s)", inv, started));
      expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
      expect(a.output() + b.output()).not.toMatch(/unhandled|TypeError/);
    });

    it("8 workers race for 400 one-step runs: each claimed once, each effect once", async () => {
      const started = Date.now();
      const p = await chaosProject(kind);
      const ids = await enqueueLedgerRuns(p, "race", 400, 1);
      const workers = Array.from({ length: 8 }, () => p.worker(["--concurrency", "20"]));
      await untilFinished(p.store, ids, 90_000);
      await stopAll(workers);
      const inv = await checkLedgerRuns(p, ids, 1);
      record(rowOf("claim race of 8 workers", kind, "8 workers, no fault", inv, started));
      // Without a fault nothing runs twice.
      expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, duplicateEffects: 0 });
    });
  });
}

/** Waits until some run is `running`; false after `ms`. */
async function untilRunning(store: Store, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await store.countRuns({ status: ["running"] })) > 0) return true;
    await delay(50);
  }
  return false;
}

async function untilLedger(p: { ledger(): Map<string, number> }, n: number): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size < n) await delay(50);
}
