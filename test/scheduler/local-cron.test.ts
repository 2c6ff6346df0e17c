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
});
