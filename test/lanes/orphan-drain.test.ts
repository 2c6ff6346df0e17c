/**
 * A lane worker whose server dies (SIGKILL, or a second SIGTERM while it shuts down) writes
 * to a pipe nobody reads any more: it must still finish the run it holds (drain) and then
 * exit, not stop on the first write that fails (EPIPE) and leave the run to its lease's
 * expiry, which costs an attempt. Real `sluice server` and lane worker processes.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { alive, cli, startedWorkers } from "./fixtures.js";

/** Sleeps `ms` in a step, then prints a line (a write after the server died) and returns. */
const SLOW = `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ ms: number }>("slow", {
  retries: 0,
  handler: async (p, ctx) => {
    const slept = await ctx.run("nap", async () => {
      await new Promise((r) => setTimeout(r, p.ms));
      console.log("woke after " + p.ms + " ms");
      return p.ms;
    });
    return { slept, pid: process.pid };
  },
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

/** A server with a lane running a slow run (its worker's pid and the run's id). */
async function serveSlow(ms: number) {
  const root = makeProject({ "workflows/slow.ts": SLOW });
  const server = spawnSluice(["server", "--port", "0", "--lane-idle", "5m"], root);
  await server.waitFor(/server \d+ ready/, 60_000);
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  stores.push(store);
  const { code, out } = await cli(["enqueue", "slow", JSON.stringify({ ms })], root);
  expect(code, out).toBe(0);
  const id = out.trim();
  await eventually(async () => (await store.getRun(id))?.status === "running", 60_000);
  const [pid] = startedWorkers(server.output(), "default");
  expect(pid).toBeDefined();
  return { root, server, store, id, pid: pid! };
}

/** The run finished on its first attempt, in the lane worker (not after a lease expiry). */
async function finishedByOrphan(store: Store, id: string, pid: number, output: () => string): Promise<void> {
  // Well under the 30 s lease: only the orphaned worker itself can have finished it.
  const run = await eventually(async () => {
    const r = await store.getRun(id);
    return r && r.status !== "running" && r.status !== "pending" ? r : null;
  }, 20_000).catch((err) => {
    throw new Error(`run ${id} did not finish: ${(err as Error).message}\nserver output:\n${output()}`);
  });
  expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
  expect(run.attempt).toBe(1);
  expect(JSON.parse(run.result!)).toMatchObject({ pid });
  await eventually(() => !alive(pid), 20_000);
}

describe("a lane worker whose server dies", () => {
  it("after SIGKILL of the server, finishes its running run and exits", async () => {
    const { server, store, id, pid } = await serveSlow(3_000);
    server.proc.kill("SIGKILL");
    await server.exited;
    expect(alive(pid)).toBe(true);
    await finishedByOrphan(store, id, pid, server.output);
  }, 120_000);

  it("after a second SIGTERM (the server exits 143 at once), finishes its running run and exits", async () => {
    const { server, store, id, pid } = await serveSlow(3_000);
    server.proc.kill("SIGTERM");
    // The server waits for its lane to drain; the second SIGTERM ends it now.
    await server.waitFor(/server stopping/, 10_000);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(143);
    expect(server.stderr()).toMatch(/sluice: second SIGTERM, exiting now/);
    await finishedByOrphan(store, id, pid, server.output);
  }, 120_000);
});
