/**
 * `Scheduler.retention` on a real SQLite store: paced transactions (small first, growing while
 * fast, never above the maximum), every old finished run deleted, unfinished and recent ones kept,
 * and a stop ends a long retention after its current transaction.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const DAY = 86_400_000;
const OPTIONS = { tickMs: 1_000, retentionMs: null, retentionEveryMs: 60_000, retentionBatch: 200 };

/** A migrated store holding `old` runs finished 10 days ago, 5 finished now and 5 pending. */
async function seeded(old: number): Promise<{ store: Store; batches: number[] }> {
  const path = join(tempDir(), "retention.db");
  const store = openSqliteStore({ path });
  await store.countRuns({});
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO runs (id, workflow, queue, status, max_attempts, backoff_base, backoff_max, root_id, created_at, finished_at, updated_at)
     VALUES (?, 'wf', 'default', ?, 3, 1000, 1000, ?, 0, ?, 0)`,
  );
  const step = db.prepare(
    "INSERT INTO steps (run_id, key, kind, status, position, started_at) VALUES (?, 's', 'step', 'done', 0, 0)",
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < old; i++) {
      insert.run(`old-${i}`, "succeeded", `old-${i}`, now - 10 * DAY);
      step.run(`old-${i}`);
    }
    for (let i = 0; i < 5; i++) insert.run(`new-${i}`, "failed", `new-${i}`, now);
    for (let i = 0; i < 5; i++) insert.run(`pending-${i}`, "pending", `pending-${i}`, null);
  })();
  db.close();
  // Record the batch size of every delete transaction.
  const batches: number[] = [];
  const deleteFinished = store.deleteFinished.bind(store);
  store.deleteFinished = (before, batch) => (batches.push(batch), deleteFinished(before, batch));
  return { store, batches };
}

describe("scheduler retention", () => {
  it("deletes old finished runs in paced transactions and keeps the rest", async () => {
    const { store, batches } = await seeded(1_500);
    const scheduler = new Scheduler(store, OPTIONS);
    try {
      expect(await scheduler.retention(DAY)).toBe(1_500);
      expect(batches[0]).toBe(20);
      expect(Math.max(...batches)).toBeLessThanOrEqual(200);
      expect(batches.length).toBeGreaterThan(8);
      expect(await store.countRuns({})).toBe(10);
      expect(await store.getSteps("old-0")).toEqual([]);
      // Retention's own commits skip the fsync; every other commit is FULL again afterwards.
      expect((store as unknown as { db: Database.Database }).db.pragma("synchronous", { simple: true })).toBe(2);
    } finally {
      await store.close();
    }
  });

  it("ends a retention in progress after its current transaction when stopped", async () => {
    const { store, batches } = await seeded(3_000);
    const scheduler = new Scheduler(store, OPTIONS);
    try {
      const running = scheduler.retention(DAY);
      await new Promise((r) => setTimeout(r, 30));
      await scheduler.stop();
      const deleted = await running;
      expect(deleted).toBeGreaterThan(0);
      expect(deleted).toBeLessThan(3_000);
      expect(await store.countRuns({})).toBe(3_010 - deleted);
      expect(batches.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
