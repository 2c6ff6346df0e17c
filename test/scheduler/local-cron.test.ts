/**
 * Schedules of `local: true` workflows on a shared database fire once per server per
 * tick (every server, leader or not); shared schedules fire once in all.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store, WorkflowInfo } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

const info = (name: string, local: boolean): WorkflowInfo => ({
  name,
  version: null,
  queue: "default",
  maxAttempts: 3,
  backoff: { base: 1000, max: 3_600_000 },
  source: null,
  schedule: { cron: "0 * * * *", timezone: "UTC" },
  local,
});

describe("local cron", () => {
  it("fires a local schedule once on each server and a shared one once in all", async () => {
    const dir = tempDir();
    const clock = new ManualClock(Date.parse("2026-12-01T08:30:00Z"));
    const opts = { tickMs: 1000, retentionMs: null, retentionEveryMs: 60_000, retentionBatch: 500 };
    const servers = ["a", "b"].map((name) => {
      const store = openSqliteStore({ path: join(dir, "cron.db"), clock });
      stores.push(store);
      return { store, scheduler: new Scheduler(store, { ...opts, localServer: name, holder: name }) };
    });
    const workflows = [info("cleanup", true), info("report", false)];
    for (const s of servers) await s.scheduler.sync(workflows);
    // Only the shared schedule is in the store; local ones live in each server's scheduler.
    expect((await servers[0]!.store.listSchedules()).map((s) => s.workflow)).toEqual(["report"]);

    clock.set(Date.parse("2026-12-01T09:00:00.250Z"));
    for (let i = 0; i < 3; i++) for (const s of servers) await s.scheduler.tick();
    const ids = (await servers[0]!.store.listRuns({ limit: 100 })).map((r) => [r.id, r.queue]).sort();
    expect(ids).toEqual([
      ["cron:cleanup@a:2026-12-01T09:00:00.000Z", "default@a"],
      ["cron:cleanup@b:2026-12-01T09:00:00.000Z", "default@b"],
      ["cron:report:2026-12-01T09:00:00.000Z", "default"],
    ]);
    expect(servers.filter((s) => s.scheduler.isLeader)).toHaveLength(1);
    for (const s of servers) await s.scheduler.stop();
  });

  it("fires the next tick on time after the clock was set back from an hour ahead, local and shared", async () => {
    const dir = tempDir();
    // The clock is an hour ahead (09:30 instead of 08:30) when the schedules are synced: next tick 10:00.
    const clock = new ManualClock(Date.parse("2026-12-01T09:30:00Z"));
    const store = openSqliteStore({ path: join(dir, "cron.db"), clock });
    stores.push(store);
    const scheduler = new Scheduler(store, {
      tickMs: 1000,
      retentionMs: null,
      retentionEveryMs: 60_000,
      retentionBatch: 500,
      localServer: "a",
      holder: "a",
    });
    await scheduler.sync([info("cleanup", true), info("report", false)]);
    expect((await store.listSchedules())[0]!.nextAt).toBe(Date.parse("2026-12-01T10:00:00Z"));
    clock.set(Date.parse("2026-12-01T08:30:00Z")); // set right
    await scheduler.tick(); // the leader's first pass re-anchors the shared schedule; the local one on its own tick
    expect((await store.listSchedules())[0]!.nextAt).toBe(Date.parse("2026-12-01T09:00:00Z"));
    expect(await store.listRuns({ limit: 100 })).toEqual([]); // nothing fired early
    clock.set(Date.parse("2026-12-01T09:00:00.250Z"));
    await scheduler.tick();
    const ids = (await store.listRuns({ limit: 100 })).map((r) => r.id).sort();
    expect(ids).toEqual(["cron:cleanup@a:2026-12-01T09:00:00.000Z", "cron:report:2026-12-01T09:00:00.000Z"]);
    await scheduler.stop();
  });
});
