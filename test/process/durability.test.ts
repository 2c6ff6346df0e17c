/**
 * Durable timers, waits, signals, cron and deduplication across real processes
 * sharing one SQLite file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually, tempDir } from "../helpers/tmp.js";

const SLEEPER = `
import { appendFileSync } from "node:fs";
import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ dir: string; ms: number }>("sleeper", {
  handler: async (p, ctx) => {
    const before = await ctx.run("before", () => Date.now());
    await ctx.sleep("nap", p.ms);
    return ctx.run("after", () => {
      appendFileSync(p.dir + "/woke.log", String(Date.now()) + "\\n");
      return { before, woke: Date.now() };
    });
  },
});
`;
const WAITER = `
import { appendFileSync } from "node:fs";
import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ dir: string; event: string; timeout?: number }>("waiter", {
  handler: async (p, ctx) => {
    const got = await ctx.waitFor(p.event, p.timeout ? { timeout: p.timeout } : {});
    await ctx.run("record", () => appendFileSync(p.dir + "/waits.log", JSON.stringify(got) + "\\n"));
    return got;
  },
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

function setup() {
  const root = makeProject({ "workflows/sleeper.ts": SLEEPER, "workflows/waiter.ts": WAITER });
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  stores.push(store);
  const lines = (file: string) =>
    existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8").trim().split("\n").filter(Boolean) : [];
  return { root, store, lines };
}

async function cli(root: string, ...args: string[]) {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.output() };
}

describe("durable sleep across process restarts", () => {
  it("an inline sleep interrupted by SIGKILL resumes on another process, once, never early", async () => {
    const { root, store, lines } = setup();
    expect(
      (await cli(root, "enqueue", "sleeper", JSON.stringify({ dir: root, ms: 2500 }), "--id", "nap-inline")).code,
    ).toBe(0);
    const w1 = spawnSluice(["worker", "--lease", "1s"], root);
    await eventually(async () => (await store.getSteps("nap-inline")).some((s) => s.key === "nap"));
    w1.proc.kill("SIGKILL");
    await w1.exited;
    const w2 = spawnSluice(["worker", "--lease", "1s"], root);
    await eventually(async () => (await store.getRun("nap-inline"))?.status === "succeeded", 15_000);
    w2.proc.kill("SIGTERM");
    await w2.exited;
    const nap = (await store.getSteps("nap-inline")).find((s) => s.key === "nap")!;
    const result = JSON.parse((await store.getRun("nap-inline"))!.result!) as { before: number; woke: number };
    expect(result.woke).toBeGreaterThanOrEqual(nap.wakeAt!);
    expect(result.woke - result.before).toBeGreaterThanOrEqual(2500);
    expect(lines("woke.log")).toHaveLength(1);
  });

  it("a parked sleep survives a graceful restart and fires once at its wake time", async () => {
    const { root, store, lines } = setup();
    await cli(root, "enqueue", "sleeper", JSON.stringify({ dir: root, ms: 1500 }), "--id", "nap-parked");
    const w1 = spawnSluice(["worker", "--inline-sleep", "0"], root);
    await eventually(async () => (await store.getRun("nap-parked"))?.status === "waiting");
    w1.proc.kill("SIGTERM");
    expect(await w1.exited).toBe(0);
    const parked = (await store.getSteps("nap-parked")).find((s) => s.key === "nap")!;
    const w2 = spawnSluice(["worker", "--inline-sleep", "0"], root);
    await eventually(async () => (await store.getRun("nap-parked"))?.status === "succeeded", 15_000);
    w2.proc.kill("SIGTERM");
    await w2.exited;
    const run = (await store.getRun("nap-parked"))!;
    const result = JSON.parse(run.result!) as { woke: number };
    expect(result.woke).toBeGreaterThanOrEqual(parked.wakeAt!);
    expect(run.attempt).toBe(1);
    expect(lines("woke.log")).toHaveLength(1);
  });
});

describe("waits and signals", () => {
  it("waitFor with a timeout returns null once; a late signal wakes nobody", async () => {
    const { root, store, lines } = setup();
    await cli(
      root,
      "enqueue",
      "waiter",
      JSON.stringify({ dir: root, event: "never", timeout: 800 }),
      "--id",
      "timeout",
    );
    const w = spawnSluice(["worker", "--inline-sleep", "0"], root);
    await eventually(async () => (await store.getRun("timeout"))?.status === "succeeded", 15_000);
    expect((await store.getRun("timeout"))!.result).toBe("null");
    const late = await cli(root, "signal", "never", "{}", "--json");
    expect(JSON.parse(late.out).woken).toBe(0);
    w.proc.kill("SIGTERM");
    await w.exited;
    expect(lines("waits.log")).toEqual(["null"]);
  });

  it("signal wakes exactly the runs waiting on the event and returns their count", async () => {
    const { root, store, lines } = setup();
    for (const [id, event] of [
      ["a", "e1"],
      ["b", "e1"],
      ["c", "e1"],
      ["d", "e2"],
    ]) {
      await cli(root, "enqueue", "waiter", JSON.stringify({ dir: root, event }), "--id", id!);
    }
    const w = spawnSluice(["worker"], root);
    await eventually(async () => (await store.countRuns({ status: "waiting" })) === 4);
    const sent = await cli(root, "signal", "e1", '{"go":1}', "--json");
    expect(JSON.parse(sent.out)).toEqual({ event: "e1", woken: 3, buffered: false });
    await eventually(async () => (await store.countRuns({ status: "succeeded" })) === 3);
    expect((await store.getRun("d"))!.status).toBe("waiting");
    w.proc.kill("SIGTERM");
    await w.exited;
    expect(lines("waits.log")).toEqual(['{"go":1}', '{"go":1}', '{"go":1}']);
  });
});

describe("deduplication across processes", () => {
  it("8 concurrent enqueues with one id create one run; a different payload conflicts", async () => {
    const { root, store } = setup();
    const payload = JSON.stringify({ dir: root, event: "x" });
    const procs = Array.from({ length: 8 }, () =>
      spawnSluice(["enqueue", "waiter", payload, "--id", "order:1", "--json"], root),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual(Array(8).fill(0));
    const results = procs.map((p) => JSON.parse(p.output()) as { id: string; deduplicated: boolean });
    expect(results.every((r) => r.id === "order:1")).toBe(true);
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    expect(await store.countRuns({})).toBe(1);
    const clash = await cli(root, "enqueue", "waiter", JSON.stringify({ dir: root, event: "y" }), "--id", "order:1");
    expect(clash.code).toBe(1);
    expect(clash.out).toMatch(/run id "order:1" already belongs to a run with a different payload/);
    expect(await store.countRuns({})).toBe(1);
  });
});

describe("cron", () => {
  it("fires once per tick with two schedulers on one database, and collapses missed ticks", async () => {
    const dir = tempDir();
    const clock = new ManualClock(Date.parse("2026-11-30T08:59:30Z"));
    const a = openSqliteStore({ path: join(dir, "cron.db"), clock });
    const b = openSqliteStore({ path: join(dir, "cron.db"), clock });
    stores.push(a, b);
    const info = {
      name: "report",
      version: null,
      queue: "default",
      maxAttempts: 3,
      backoff: { base: 1000, max: 3_600_000 },
      source: null,
      schedule: { cron: "0 9 * * 1-5", timezone: "Europe/Paris" },
    };
    await a.registerWorkflows([info]);
    const opts = { tickMs: 1000, retentionMs: null, retentionEveryMs: 60_000, retentionBatch: 500 };
    const sa = new Scheduler(a, opts);
    const sb = new Scheduler(b, opts);
    await sa.sync([info]);
    await sb.sync([info]);
    // Synced on Monday 08:59:30Z = 09:59:30 Paris: today's 09:00 Paris tick is past, so the next is Tuesday 08:00Z.
    expect(await sa.fireDue()).toBe(0);
    const first = (await a.listSchedules())[0]!;
    expect(new Date(first.nextAt!).toISOString()).toBe("2026-12-01T08:00:00.000Z");
    clock.set(Date.parse("2026-12-01T08:00:00.500Z"));
    const fired = await Promise.all([sa.fireDue(), sb.fireDue(), sa.fireDue(), sb.fireDue()]);
    expect(fired.reduce((x, y) => x + y, 0)).toBe(1);
    expect((await a.listRuns({ workflow: "report" })).map((r) => r.id)).toEqual([
      "cron:report:2026-12-01T08:00:00.000Z",
    ]);
    // Down for three days: the missed ticks collapse into one run, then the schedule moves on.
    clock.set(Date.parse("2026-12-04T12:00:00Z"));
    expect(await sb.fireDue()).toBe(1);
    expect(await sa.fireDue()).toBe(0);
    expect(await a.countRuns({ workflow: "report" })).toBe(2);
    expect(new Date((await a.listSchedules())[0]!.nextAt!).toISOString()).toBe("2026-12-07T08:00:00.000Z");
  });
});
