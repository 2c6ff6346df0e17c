/**
 * `Store.reanchorDueTimes` on a real SQLite file whose clock (the store's injected clock, as a
 * process's wall clock) ran an hour ahead while runs and cron schedules were written, then was set
 * right.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nextFireAfter } from "../../src/core/cron.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { EnqueueRequest } from "../../src/store/types.js";
import { enqueueRequest } from "../helpers/requests.js";
import { tempDir } from "../helpers/tmp.js";

const HOUR = 3_600_000;
let offset = HOUR;
const clock = { now: () => Date.now() + offset };
const store = openSqliteStore({ path: join(tempDir("sluice-reanchor-"), "sluice.db"), clock });
afterAll(() => store.close());

function req(id: string, runAt?: number): EnqueueRequest {
  return enqueueRequest(id, { backoff: { base: 1000, max: HOUR }, ...(runAt !== undefined && { runAt }) });
}

describe("re-anchoring on SQLite after the clock was set back", () => {
  it("makes a run enqueued to start at once due now, and keeps a runAt the enqueuer chose", async () => {
    const chosen = clock.now() + 10 * 60_000; // 10 min after the fast clock's now
    await store.commit([
      { verb: "enqueue", request: req("at-once") },
      { verb: "enqueue", request: req("chosen", chosen) },
    ]);
    offset = 0; // the clock is set right
    const before = (await store.getRun("at-once"))!.readyAt!;
    expect(before).toBeGreaterThan(Date.now() + HOUR - 5_000);
    expect(await store.reanchorDueTimes()).toBe(1);
    const now = Date.now();
    const moved = (await store.getRun("at-once"))!;
    expect(moved.readyAt!).toBeLessThanOrEqual(now);
    expect(moved.readyAt!).toBeGreaterThan(now - 5_000);
    expect((await store.getRun("chosen"))!.readyAt).toBe(chosen);
    // Moved once: the row now carries the present clock.
    expect(await store.reanchorDueTimes()).toBe(0);
  });

  it("recomputes a cron schedule's next tick written while the clock was ahead from the expression and now", async () => {
    offset = HOUR;
    const fast = clock.now();
    const aheadNext = nextFireAfter({ cron: "* * * * *", timezone: "UTC" }, fast)!;
    await store.syncSchedules([{ workflow: "minutely", cron: "* * * * *", timezone: "UTC", nextAt: aheadNext }]);
    await store.syncSchedules(
      [
        {
          workflow: "yearly",
          cron: "0 0 1 1 *",
          timezone: "UTC",
          nextAt: Date.UTC(new Date(fast).getUTCFullYear() + 1, 0, 1),
        },
      ],
      "release",
    );
    offset = 0;
    const now = Date.now();
    expect(await store.reanchorDueTimes()).toBe(1);
    const byName = new Map((await store.listSchedules()).map((s) => [s.workflow, s]));
    // The next minute of the real clock, not of the clock that was an hour ahead.
    expect(byName.get("minutely")!.nextAt).toBe(nextFireAfter({ cron: "* * * * *", timezone: "UTC" }, now));
    expect(byName.get("minutely")!.nextAt!).toBeLessThanOrEqual(now + 60_000);
    // A yearly tick is the same from either clock (unless the hour crossed New Year): left.
    expect(byName.get("yearly")!.nextAt).toBe(Date.UTC(new Date(now).getUTCFullYear() + 1, 0, 1));
    expect(await store.reanchorDueTimes()).toBe(0);
  });
});
