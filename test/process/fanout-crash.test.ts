/**
 * SIGKILL a worker while 200 child tasks are running: after a restart each child's
 * result reaches the parent exactly once and the parent completes with the right sum.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";

const pgUrl = await testDatabase("fanoutcrash");

const FANOUT = `
import { appendFileSync } from "node:fs";
import { workflow, task } from "windmill-client";
async function child(dir: string, i: number) {
  appendFileSync(dir + "/started.log", i + "\\n");
  await new Promise((r) => setTimeout(r, 1500));
  return i;
}
export const main = workflow(async (dir: string, n: number) => {
  const xs = await Promise.all(Array.from({ length: n }, (_, i) => task(child)(dir, i)));
  return xs.reduce((a, b) => a + b, 0);
});
`;

let store: Store | null = null;
afterAll(async () => {
  await store?.close();
});

describe("fan-out crash", () => {
  it("SIGKILL while 200 children run: each child's result is delivered once and the parent completes", async () => {
    const root = makeProject({ "f/fanout.ts": FANOUT });
    store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    const started = () =>
      existsSync(join(root, "started.log"))
        ? readFileSync(join(root, "started.log"), "utf8").trim().split("\n").length
        : 0;
    const enq = spawnSluice(["enqueue", "f/fanout", JSON.stringify({ dir: root, n: 200 }), "--id", "fan"], root);
    expect(await enq.exited).toBe(0);
    const w1 = spawnSluice(["worker", "--lease", "1s", "--quiet"], root);
    await eventually(() => started() >= 200, 20_000);
    w1.proc.kill("SIGKILL");
    await w1.exited;
    expect(await store.countRuns({ parentId: "fan", status: "running" })).toBe(200);

    const w2 = spawnSluice(["worker", "--lease", "1s", "--quiet"], root);
    await eventually(async () => (await store!.getRun("fan"))?.status === "succeeded", 30_000);
    w2.proc.kill("SIGTERM");
    expect(await w2.exited).toBe(0);

    const parent = (await store.getRun("fan"))!;
    expect(parent.result).toBe(String((199 * 200) / 2));
    expect(parent.outstanding).toBe(0);
    const steps = await store.getSteps("fan");
    const tasks = steps.filter((s) => s.kind === "task");
    expect(tasks).toHaveLength(200);
    expect(tasks.every((s) => s.status === "done")).toBe(true);
    expect(tasks.map((s) => Number(s.value)).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    const kids = await store.listRuns({ parentId: "fan", limit: 1000 });
    expect(kids).toHaveLength(200);
    // Losing the worker cost each child one attempt (of 3); its own errors would cost none.
    expect(kids.every((k) => k.status === "succeeded" && k.attempt === 2)).toBe(true);
    // Each child ran twice (killed once, then again), and was delivered once.
    expect(started()).toBe(400);
  });

  it.each([
    {
      name: "SQLite",
      open: (root: string) => ({ db: openSqliteStore({ path: join(root, ".sluice", "sluice.db") }), env: {} }),
    },
    {
      name: "Postgres",
      open: () => {
        const url = withDatabase(pgUrl, new URL(pgUrl).pathname.slice(1), { schema: "crash_after_suspend" });
        return { db: openPostgresStore(url), env: { SLUICE_DATABASE_URL: url } };
      },
    },
  ])(
    "SIGKILL right after the suspension created the children leased to the worker ($name): their leases expire, each runs once",
    async ({ open }) => {
      const root = makeProject({ "f/fanout.ts": FANOUT });
      const { db, env } = open(root);
      const started = () =>
        existsSync(join(root, "started.log"))
          ? readFileSync(join(root, "started.log"), "utf8").trim().split("\n").length
          : 0;
      try {
        const enq = spawnSluice(
          ["enqueue", "f/fanout", JSON.stringify({ dir: root, n: 50 }), "--id", "fan"],
          root,
          env,
        );
        expect(await enq.exited).toBe(0);
        const w1 = spawnSluice(["worker", "--lease", "1s", "--quiet"], root, {
          ...env,
          SLUICE_TEST_CRASH_AT: "after-suspend-commit",
        });
        expect(await w1.exited).toBe("SIGKILL");
        // Committed: all 50 children exist, leased to the dead worker, and none of them ran.
        const leased = await db.listRuns({ parentId: "fan", limit: 1000 });
        expect(leased).toHaveLength(50);
        expect(leased.every((k) => k.status === "running" && k.leaseOwner !== null)).toBe(true);
        expect(started()).toBe(0);

        const w2 = spawnSluice(["worker", "--lease", "1s", "--quiet"], root, env);
        await eventually(async () => (await db.getRun("fan"))?.status === "succeeded", 30_000);
        w2.proc.kill("SIGTERM");
        expect(await w2.exited).toBe(0);
        expect((await db.getRun("fan"))!.result).toBe(String((49 * 50) / 2));
        const kids = await db.listRuns({ parentId: "fan", limit: 1000 });
        // Reclaimed after their leases expired: the lost claim cost each one attempt.
        expect(kids.every((k) => k.status === "succeeded" && k.attempt === 2)).toBe(true);
        expect(started()).toBe(50);
      } finally {
        await db.close();
      }
    },
    60_000,
  );
});
