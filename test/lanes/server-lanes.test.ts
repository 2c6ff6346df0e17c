/**
 * Scale to zero with real processes: `sluice server` keeps no worker while nothing is
 * runnable and starts one `sluice worker` per worker group when work becomes runnable
 * (an enqueue, a signal, a due sleep, a cron tick); each exits after its idle window.
 * (Each test starts its own server: the process helper kills what a test started.)
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { alive, cli, CRON_WORKFLOW, LANE_WORKFLOWS, startedWorkers } from "./fixtures.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

/** A project with the lane workflows and a `sluice server` on it (1 s idle window, every sleep parks). */
async function serve(extra: Record<string, string> = {}, laneIdle = "1s") {
  const root = makeProject({ ...LANE_WORKFLOWS, ...extra });
  const server = spawnSluice(["server", "--port", "0", "--lane-idle", laneIdle, "--scheduler-tick", "200ms"], root, {
    SLUICE_INLINE_SLEEP: "0",
  });
  await server.waitFor(/server \d+ ready/, 60_000);
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  stores.push(store);
  const result = async (id: string): Promise<Record<string, unknown>> => {
    const run = await eventually(async () => {
      const r = await store.getRun(id);
      return r && (r.status === "succeeded" || r.status === "failed") ? r : null;
    }, 60_000).catch((err) => {
      throw new Error(`run ${id} did not finish: ${(err as Error).message}\nserver output:\n${server.output()}`);
    });
    expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
    return JSON.parse(run.result!);
  };
  const enqueue = async (workflow: string, payload = "{}"): Promise<string> => {
    const { code, out } = await cli(["enqueue", workflow, payload], root);
    expect(code, out).toBe(0);
    return out.trim().split("\n").pop()!;
  };
  return { root, server, store, result, enqueue };
}

/** Waits until the lane's worker `pid` has exited after its idle window, and checks the process is gone. */
async function idledOut(server: SluiceProcess, lane: string, pid: number): Promise<void> {
  await server.waitFor(new RegExp(`lane ${lane}: worker pid ${pid} exited \\(idle\\)`), 30_000);
  expect(alive(pid)).toBe(false);
}

describe("sluice server: one worker process per worker group, started on demand", () => {
  it("starts no worker while nothing is runnable; an enqueue starts one, which exits after its idle window", async () => {
    const { server, result, enqueue } = await serve();
    expect(server.output()).toMatch(/lanes: one worker process per worker group/);
    expect(startedWorkers(server.output(), "default")).toEqual([]);
    const id = await enqueue("hello", '{"n":1}');
    const value = await result(id);
    const [pid] = startedWorkers(server.output(), "default");
    expect(value).toMatchObject({ n: 1, pid, lane: "default" });
    expect(value.pid).not.toBe(server.pid);
    // The worker's output is in the server's log stream, prefixed by its lane (relayed
    // through a pipe, so it may arrive a moment after the run is stored as finished).
    await server.waitFor(new RegExp(`\\[lane default\\] ✓ hello ${id} succeeded`), 10_000);
    await idledOut(server, "default", pid!);
    // The next run starts a fresh process.
    const again = await result(await enqueue("hello", '{"n":2}'));
    const pids = startedWorkers(server.output(), "default");
    expect(pids).toHaveLength(2);
    expect(again.pid).toBe(pids[1]);
    expect(pids[1]).not.toBe(pid);
  }, 120_000);

  it("runs two worker groups in two separate worker processes", async () => {
    const { server, result, enqueue } = await serve();
    const [a, b] = await Promise.all([enqueue("hello", '{"n":3}'), enqueue("send-email")]);
    const [ra, rb] = await Promise.all([result(a), result(b)]);
    expect(ra.lane).toBe("default");
    expect(rb.lane).toBe("email");
    expect(ra.pid).not.toBe(rb.pid);
    expect(startedWorkers(server.output(), "default")).toEqual([ra.pid]);
    expect(startedWorkers(server.output(), "email")).toEqual([rb.pid]);
    await server.waitFor(new RegExp(`\\[lane email\\] ✓ send-email ${b} succeeded`), 10_000);
  }, 120_000);

  it("a signal starts a worker for a run that waited with no worker alive", async () => {
    const { server, store, result, enqueue, root } = await serve();
    const id = await enqueue("waiter");
    await eventually(async () => (await store.getRun(id))?.status === "waiting", 60_000);
    const [first] = startedWorkers(server.output(), "signals");
    await idledOut(server, "signals", first!);
    expect(startedWorkers(server.output(), "signals")).toHaveLength(1);
    const { code, out } = await cli(["signal", "go", '{"ok":true}'], root);
    expect(code, out).toBe(0);
    const value = await result(id);
    const pids = startedWorkers(server.output(), "signals");
    expect(pids).toHaveLength(2);
    expect(value).toEqual({ first, value: { ok: true }, pid: pids[1] });
  }, 120_000);

  it("a due sleep starts a worker for a run that slept with no worker alive", async () => {
    const { server, store, result, enqueue } = await serve();
    const id = await enqueue("sleeper");
    await eventually(async () => (await store.getRun(id))?.status === "waiting", 60_000);
    const [first] = startedWorkers(server.output(), "sleepy");
    await idledOut(server, "sleepy", first!);
    const value = await result(id);
    const pids = startedWorkers(server.output(), "sleepy");
    expect(pids).toHaveLength(2);
    expect(value).toEqual({ before: first, after: pids[1] });
  }, 120_000);

  it("a cron tick starts a worker for its group", async () => {
    const { server, store } = await serve({ "workflows/ticker.ts": CRON_WORKFLOW });
    expect(startedWorkers(server.output(), "cron")).toEqual([]);
    // "* * * * *" fires at the next minute boundary.
    const run = await eventually(
      async () => (await store.listRuns({ workflow: "ticker", status: "succeeded" }))[0],
      75_000,
      200,
    );
    const value = JSON.parse(run.result!);
    expect(value.lane).toBe("cron");
    expect(startedWorkers(server.output(), "cron")[0]).toBe(value.pid);
    await idledOut(server, "cron", value.pid);
  }, 120_000);

  it("a lease reclaimed from a dead worker starts a lane worker for the next attempt", async () => {
    const stuck = `import { defineWorkflow } from "sluice";
export default defineWorkflow("stuck", {
  handler: async (_p, ctx) => {
    await ctx.run("work", () => new Promise((r) => setTimeout(r, ctx.attempt === 1 ? 600_000 : 0)));
    return { attempt: ctx.attempt, pid: process.pid };
  },
});
`;
    const root = makeProject({ "workflows/stuck.ts": stuck });
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    // A hand-started worker with a 1 s lease takes the run, then dies.
    const worker = spawnSluice(["worker", "--lease", "1s"], root);
    await worker.waitFor(/ready/, 60_000);
    const { code, out } = await cli(["enqueue", "stuck"], root);
    expect(code, out).toBe(0);
    const id = out.trim();
    await eventually(async () => (await store.getRun(id))?.status === "running", 60_000);
    worker.proc.kill("SIGKILL");
    await worker.exited;
    // The server has no worker until it reclaims the expired lease; then a lane runs attempt 2.
    const server = spawnSluice(["server", "--port", "0", "--lane-idle", "1s"], root);
    await server.waitFor(/server \d+ ready/, 60_000);
    const run = await eventually(async () => {
      const r = await store.getRun(id);
      return r?.status === "succeeded" ? r : null;
    }, 60_000);
    const value = JSON.parse(run.result!);
    expect(value.attempt).toBe(2);
    expect(startedWorkers(server.output(), "default")).toEqual([value.pid]);
    // The server says what it did with the dead worker's claim.
    expect(server.output()).toMatch(
      new RegExp(
        `run ${id} \\(stuck\\): the lease of attempt 1 expired \\(its worker stopped heartbeating\\); attempt 2/\\d+ is queued`,
      ),
    );
  }, 120_000);

  it("a lane worker whose server dies (SIGKILL) drains and exits instead of living on", async () => {
    // A long idle window: the worker is still alive when its server is killed.
    const { server, store, enqueue } = await serve({}, "5m");
    const id = await enqueue("waiter");
    await eventually(async () => (await store.getRun(id))?.status === "waiting", 60_000);
    const [pid] = startedWorkers(server.output(), "signals");
    expect(alive(pid!)).toBe(true);
    server.proc.kill("SIGKILL");
    await server.exited;
    await eventually(() => !alive(pid!), 20_000);
  }, 120_000);
});
