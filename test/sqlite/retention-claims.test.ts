/**
 * Retention beside a claiming connection (issue 15: deleting a long history must not hold claims
 * up): `Scheduler.retention` deletes in transactions of at most `retentionBatch` runs with a rest
 * after each, so claims made by another connection to the file while it runs are taken between
 * its transactions, not after the whole history is gone. (Behaviour, not timing: the pauses
 * themselves are measured by `npm run bench -- --large`.)
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import type { EnqueueRequest } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const DAY = 86_400_000;
const OLD = 4_000;
const BATCH = 100;
const dir = tempDir();
const open: SqliteStore[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** A migrated file holding `OLD` runs finished 10 days ago, each with one step. */
function seeded(): string {
  const path = join(dir, "retention-claims.db");
  open.push(openSqliteStore({ path }));
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO runs (id, workflow, queue, status, max_attempts, backoff_base, backoff_max, root_id, created_at, finished_at, updated_at)
     VALUES (?, 'old', 'default', 'succeeded', 3, 1000, 1000, ?, 0, ?, 0)`,
  );
  const step = db.prepare(
    "INSERT INTO steps (run_id, key, kind, status, position, started_at) VALUES (?, 's', 'step', 'done', 0, 0)",
  );
  const finishedAt = Date.now() - 10 * DAY;
  db.transaction(() => {
    for (let i = 0; i < OLD; i++) {
      insert.run(`old-${i}`, `old-${i}`, finishedAt);
      step.run(`old-${i}`);
    }
  })();
  db.close();
  return path;
}

function request(i: number): EnqueueRequest {
  return {
    id: `fresh-${i}`,
    dedupe: false,
    workflow: "wf",
    queue: "default",
    payload: "{}",
    maxAttempts: 3,
    backoff: { base: 1000, max: 60_000 },
  };
}

describe("retention beside claims (SQLite)", () => {
  it("deletes in bounded transactions while another connection's claims are taken between them", async () => {
    const path = seeded();
    const retainer = openSqliteStore({ path });
    const claimer = openSqliteStore({ path });
    open.push(retainer, claimer);
    await claimer.commit(Array.from({ length: 200 }, (_, i) => ({ verb: "enqueue" as const, request: request(i) })));

    // The order in which delete transactions and claims commit.
    const events: string[] = [];
    const deleteFinished = retainer.deleteFinished.bind(retainer);
    retainer.deleteFinished = async (before, batch) => {
      const n = await deleteFinished(before, batch);
      events.push(`delete:${n}`);
      return n;
    };
    const scheduler = new Scheduler(retainer, {
      tickMs: 1_000,
      retentionMs: null,
      retentionEveryMs: 60_000,
      retentionBatch: BATCH,
    });
    let retaining = true;
    const retention = scheduler.retention(DAY).finally(() => (retaining = false));
    let claimed = 0;
    while (retaining) {
      const runs = await claimer.claim({ workerId: "probe", limit: 1, leaseMs: 30_000, workflows: ["wf"] });
      if (runs.length > 0) {
        claimed += runs.length;
        events.push("claim");
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await retention).toBe(OLD);

    const deletes = events.filter((e) => e.startsWith("delete:")).map((e) => Number(e.slice(7)));
    // Every old run gone, in many transactions, none over the batch bound.
    expect(deletes.reduce((a, b) => a + b, 0)).toBe(OLD);
    expect(Math.max(...deletes)).toBeLessThanOrEqual(BATCH);
    expect(deletes.length).toBeGreaterThanOrEqual(OLD / BATCH);
    // Claims were taken while retention went on: between its first and its last transaction.
    const first = events.findIndex((e) => e.startsWith("delete:"));
    const last = events.length - 1 - [...events].reverse().findIndex((e) => e.startsWith("delete:"));
    const between = events.slice(first, last).filter((e) => e === "claim").length;
    expect(claimed).toBeGreaterThan(0);
    expect(between).toBeGreaterThan(0);
    expect(await claimer.countRuns({ status: "running" })).toBe(claimed);
    expect(await claimer.countRuns({ status: "succeeded" })).toBe(0);
  });
});
