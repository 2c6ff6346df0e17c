/**
 * `Store.reanchorDueTimes` on Postgres for cron schedules: the database server's clock decides
 * there, and it cannot be moved here, so the test writes the schedule row as a server clock an hour
 * ahead would have (`next_at`, `updated_at` an hour out), then asks the store to re-anchor.
 */
import { afterAll, describe, expect, it } from "vitest";
import { nextFireAfter } from "../../src/core/cron.js";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import { sql, testDatabase } from "../helpers/postgres.js";

const HOUR = 3_600_000;
const url = await testDatabase("reanchor");
const store = openPostgresStore(url, { pollMs: 200 });
await store.ready();
afterAll(() => store.close());

describe("re-anchoring cron schedules on Postgres after the server's clock was set back", () => {
  it("gives a schedule written an hour ahead the cron's next tick from now, and leaves the others", async () => {
    const minutely = { cron: "* * * * *", timezone: "UTC" };
    const now = await store.now();
    await store.syncSchedules([
      { workflow: "ahead", ...minutely, nextAt: nextFireAfter(minutely, now) },
      { workflow: "right", ...minutely, nextAt: nextFireAfter(minutely, now) },
    ]);
    await sql(
      url,
      "UPDATE schedules SET next_at = next_at + $1, updated_at = updated_at + $1 WHERE workflow = 'ahead'",
      [HOUR],
    );
    const right = (await store.listSchedules()).find((s) => s.workflow === "right")!.nextAt;
    const before = await store.now();
    expect(await store.reanchorDueTimes()).toBe(1);
    const after = await store.now();
    const byName = new Map((await store.listSchedules()).map((s) => [s.workflow, s.nextAt]));
    // The next minute of the server's clock when it re-anchored (a minute may turn meanwhile).
    expect([nextFireAfter(minutely, before), nextFireAfter(minutely, after)]).toContain(byName.get("ahead"));
    expect(byName.get("right")).toBe(right);
    expect(await store.reanchorDueTimes()).toBe(0);
  });
});
