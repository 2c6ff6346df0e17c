/**
 * `sluice dev --workers separate`: workflows run in scale-to-zero worker processes, and a
 * code change drains the current worker (its running claim finishes on the old code)
 * while new work goes to a fresh worker on the new version. Real processes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { alive, cli, startedWorkers } from "./fixtures.js";

const slow = (version: string) => `import { defineWorkflow } from "sluice";
const VERSION = "${version}";
export default defineWorkflow<{ ms: number }>("slow", {
  handler: async (p, ctx) => {
    await ctx.run("work", () => new Promise((r) => setTimeout(r, p.ms)));
    return { version: VERSION, pid: process.pid };
  },
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("sluice dev --workers separate", () => {
  it("runs workflows in a lane worker; after a code change new work gets a fresh worker while the old one drains", async () => {
    const root = makeProject({ "workflows/slow.ts": slow("v1") });
    const dev = spawnSluice(["dev", ".", "--port", "0", "--workers", "separate", "--lane-idle", "1m"], root);
    await dev.waitFor(/UI: http/, 60_000);
    expect(dev.output()).toMatch(/lanes: one worker process per worker group/);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const result = async (id: string) => {
      const run = await eventually(async () => {
        const r = await store.getRun(id);
        return r?.status === "succeeded" || r?.status === "failed" ? r : null;
      }, 60_000);
      expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
      return JSON.parse(run.result!) as { version: string; pid: number };
    };

    const long = await cli(["enqueue", "slow", '{"ms":6000}'], root);
    expect(long.code, long.out).toBe(0);
    await eventually(
      async () =>
        (await store.getSteps(long.out.trim())).length === 0 &&
        (await store.getRun(long.out.trim()))?.status === "running",
      60_000,
    );
    const [oldPid] = startedWorkers(dev.output(), "default");
    expect(oldPid).not.toBe(dev.pid);

    writeFileSync(join(root, "workflows", "slow.ts"), slow("v2"));
    await dev.waitFor(new RegExp(`lane default: new code, worker pid ${oldPid} drains its running claims`), 30_000);
    const quick = await cli(["enqueue", "slow", '{"ms":0}'], root);
    expect(quick.code, quick.out).toBe(0);

    const [oldResult, newResult] = await Promise.all([result(long.out.trim()), result(quick.out.trim())]);
    expect(oldResult).toEqual({ version: "v1", pid: oldPid });
    const pids = startedWorkers(dev.output(), "default");
    expect(pids).toHaveLength(2);
    expect(newResult).toEqual({ version: "v2", pid: pids[1] });
    // The drained worker exits once its claim is done, well before its one-minute idle window.
    await dev.waitFor(new RegExp(`lane default: retired worker pid ${oldPid} exited`), 30_000);
    expect(alive(oldPid!)).toBe(false);
    expect(alive(pids[1]!)).toBe(true);
  }, 180_000);
});
