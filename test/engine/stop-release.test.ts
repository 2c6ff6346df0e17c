/**
 * `engine.stop({ drain })` in an embedding app, on a real SQLite file: a claim still running when the drain
 * passes is abandoned as `sluice worker` abandons it, its lease released at once (the run queued for its
 * next attempt, leased to no one), not kept until it expires.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow } from "../../src/index.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { delay, tempDir } from "../helpers/tmp.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("engine.stop", () => {
  it("releases the lease of a run still running after its drain, for the next worker", async () => {
    const database = join(tempDir(), "stop.db");
    // Never settles: the run is still in its step when the drain ends.
    const never = new Promise<string>(() => {});
    const stuck = defineWorkflow("stuck", { retries: 1, handler: async (_p, ctx) => ctx.run("work", () => never) });
    const engine = createEngine({ database, workflows: [stuck], worker: { lease: "10m" } });
    await engine.start();
    const run = await stuck.start({});
    while ((await engine.store.getRun(run.id))!.status !== "running") await delay(10);
    await engine.stop({ drain: "100ms" });

    const store = openSqliteStore({ path: database });
    stores.push(store);
    // Kept, it would stay running under the stopped engine's ten-minute lease.
    expect(await store.getRun(run.id)).toMatchObject({ status: "pending", attempt: 2, leaseOwner: null });
    // Its error says it was released after the drain, not that its lease expired.
    expect((await store.getRun(run.id))!.error).toMatchObject({
      code: "LEASE_RELEASED",
      data: { reason: "drain-timeout" },
    });
    // Counted as released, not as an expired lease.
    const reclaimed = (await engine.metrics.registry.getMetricsAsJSON()).find(
      (m) => m.name === "sluice_leases_reclaimed_total",
    )!;
    expect(reclaimed.values.map((v) => ({ ...v.labels, n: v.value }))).toEqual([
      { workflow: "stuck", outcome: "retry", cause: "released", n: 1 },
    ]);
  });
});
