/**
 * The scheduler under a wall clock that jumps back an hour (NTP stepping the clock, a VM
 * restored): retention keeps its interval and a stale leadership answer still reads as
 * unknown, because both intervals are measured on the monotonic clock. `Date.now` is
 * replaced for the jump (the machine's clock cannot be changed here); monotonic time is not.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { delay, eventually, tempDir } from "../helpers/tmp.js";

const HOUR = 3_600_000;

/** Makes `Date.now` (and only it) run `offsetMs` off the real clock from now on. */
function jumpClock(offsetMs: number): void {
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + offsetMs);
}

afterEach(() => vi.restoreAllMocks());

describe("scheduler under a wall clock that jumps back", () => {
  it("keeps running retention at its interval after the clock jumps back an hour", async () => {
    const store = openSqliteStore({ path: join(tempDir(), "jump.db") });
    let retentions = 0;
    const deleteFinished = store.deleteFinished.bind(store);
    store.deleteFinished = (before, batch) => (retentions++, deleteFinished(before, batch));
    const scheduler = new Scheduler(store, {
      tickMs: 20,
      retentionMs: HOUR,
      retentionEveryMs: 100,
      retentionBatch: 50,
    });
    try {
      await scheduler.tick();
      expect(retentions).toBe(1);
      jumpClock(-HOUR);
      scheduler.start();
      // Before, the last retention's wall-clock time lay an hour ahead: none ran until the clock caught up.
      await eventually(() => retentions >= 3, 3_000);
      expect(scheduler.isLeader).toBe(true);
    } finally {
      await scheduler.stop();
      await store.close();
    }
  });

  it("reports leadership unknown once the store stops answering, although the clock jumped back", async () => {
    const store = openSqliteStore({ path: join(tempDir(), "jump-lead.db") });
    const scheduler = new Scheduler(store, {
      tickMs: 1_000,
      retentionMs: null,
      retentionEveryMs: 60_000,
      retentionBatch: 50,
      leaderTtlMs: 100,
    });
    try {
      await scheduler.tick();
      expect(scheduler.leadership().state).toBe("leader");
      jumpClock(-HOUR);
      store.lead = () => Promise.reject(new Error("the store stopped answering"));
      await scheduler.tick();
      await delay(150);
      expect(scheduler.leadership().state).toBe("unknown");
    } finally {
      await scheduler.stop();
      await store.close();
    }
  });
});
