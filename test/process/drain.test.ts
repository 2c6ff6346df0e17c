/** Graceful drain on SIGTERM and worker groups, with real worker processes. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "workflows/slow.ts": `
    import { appendFileSync } from "node:fs";
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow<{ dir: string }>("slow", {
      handler: async (p, ctx) => {
        await ctx.run("work", async () => {
          appendFileSync(p.dir + "/slow.log", "started\\n");
          await new Promise((r) => setTimeout(r, 1200));
          appendFileSync(p.dir + "/slow.log", "finished\\n");
        });
        return "done";
      },
    });`,
  "workflows/email.ts": `
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow("send-email", { worker: "email", handler: async () => "sent" });`,
};

/** Attempt 1 sleeps `ms` in its step; later attempts return at once. */
const SLOW_FIRST_ATTEMPT = `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ ms: number }>("slow", {
  retries: 1,
  handler: async (p, ctx) => {
    const slept = await ctx.run("nap", async () => {
      const ms = ctx.attempt === 1 ? p.ms : 0;
      await new Promise((r) => setTimeout(r, ms));
      return ms;
    });
    return { slept, attempt: ctx.attempt };
  },
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("workers", () => {
  it("SIGTERM drains: a run in the middle of a step finishes before the worker exits", async () => {
    const root = makeProject(FILES);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const log = () =>
      existsSync(join(root, "slow.log")) ? readFileSync(join(root, "slow.log"), "utf8").trim().split("\n") : [];
    expect(await spawnSluice(["enqueue", "slow", JSON.stringify({ dir: root }), "--id", "slow-1"], root).exited).toBe(
      0,
    );
    const w = spawnSluice(["worker"], root);
    await eventually(() => log().includes("started"));
    w.proc.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.output()).toMatch(/draining…[\s\S]*✓ slow slow-1 succeeded[\s\S]*worker stopped after 1 claim/);
    expect(log()).toEqual(["started", "finished"]);
    expect((await store.getRun("slow-1"))!.status).toBe("succeeded");
  });

  it("a workflow with worker: 'email' is only claimed by a worker of that group", async () => {
    const root = makeProject(FILES);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    expect(await spawnSluice(["enqueue", "send-email", "{}", "--id", "mail-1"], root).exited).toBe(0);
    const other = spawnSluice(["worker", "--group", "default", "--exit-when-idle", "--idle", "300ms"], root);
    expect(await other.exited).toBe(0);
    expect((await store.getRun("mail-1"))!.status).toBe("pending");
    const email = spawnSluice(["worker", "--group", "email", "--exit-when-idle", "--idle", "300ms"], root);
    expect(await email.exited).toBe(0);
    expect((await store.getRun("mail-1"))!).toMatchObject({ status: "succeeded", queue: "email", result: '"sent"' });
  });

  // It printed "worker stopped after 0 claim(s)", exited 0 and left the run running for the rest of its lease.
  it("a drain timeout that passes: names the runs it abandoned, counts its claim, exits 1 and releases their leases for the next worker", async () => {
    const root = makeProject({ "workflows/slow.ts": SLOW_FIRST_ATTEMPT });
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    // A lease far longer than the test: only a released lease lets the run go on in time.
    const worker = spawnSluice(["worker", "--drain-timeout", "1s", "--lease", "5m"], root);
    await worker.waitFor(/worker \S+ ready/, 60_000);
    const enq = spawnSluice(["enqueue", "slow", '{"ms": 60000}'], root);
    expect(await enq.exited).toBe(0);
    const id = enq.stdout().trim();
    await eventually(async () => (await store.getRun(id))?.status === "running", 30_000);

    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(1);
    const out = worker.stdout();
    expect(out).toMatch(/draining…\n/);
    expect(out).toContain(
      `drain timeout (1s) passed with 1 run(s) still running: abandoned ${id}; their leases were released: 1 run(s) get another attempt from the next worker\n`,
    );
    expect(out).toMatch(/worker stopped after 1 claim\(s\), 1 abandoned\n$/);
    // Released, not left running under the dead worker's lease: attempt 2 is queued.
    const after = await store.getRun(id);
    expect(after).toMatchObject({ status: "pending", attempt: 2, leaseOwner: null });
    // Its error and the worker's log say it was released after the drain timeout, not that its lease expired.
    const released =
      "attempt 1 was ended when its worker stopped with it still running after its drain timeout (its claim was released, not left to expire)";
    expect(out).toContain(`↻ slow ${id} attempt 1 failed (${released}); retry 2/2`);
    expect(out).not.toMatch(/stopped heartbeating|lease expired/);
    const shown = spawnSluice(["show", id, "--json"], root);
    expect(await shown.exited).toBe(0);
    expect(JSON.parse(shown.stdout())).toMatchObject({
      status: "pending",
      error: {
        name: "LeaseReleasedError",
        code: "LEASE_RELEASED",
        message: released,
        data: { reason: "drain-timeout" },
      },
    });

    // The next worker takes it at once (after the run's backoff), not minutes later.
    const next = spawnSluice(["worker"], root);
    const run = await eventually(async () => {
      const r = await store.getRun(id);
      return r?.status === "succeeded" ? r : null;
    }, 20_000);
    expect(JSON.parse(run.result!)).toEqual({ slept: 0, attempt: 2 });
    next.proc.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  }, 120_000);

  // dev (engine.stop) kept the abandoned claims' leases: the other worker waited for them to expire (30 s).
  it("sluice dev stopped with a run still running after its drain releases its lease: a separate worker takes it over at once", async () => {
    const root = makeProject({ "workflows/slow.ts": SLOW_FIRST_ATTEMPT });
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    await dev.waitFor(/UI: http/, 60_000);
    const enq = spawnSluice(["enqueue", "slow", '{"ms": 120000}'], root);
    expect(await enq.exited).toBe(0);
    const id = enq.stdout().trim();
    await eventually(async () => (await store.getRun(id))?.status === "running", 30_000);
    // Started once dev holds the run: it can only get it from dev.
    const worker = spawnSluice(["worker"], root);
    await worker.waitFor(/worker \S+ ready/, 60_000);

    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    const stopped = Date.now();
    // dev's lease (30 s, renewed every 10 s until its drain ended) would keep the run for 20 s more.
    const run = await eventually(async () => {
      const r = await store.getRun(id);
      return r?.status === "succeeded" ? r : null;
    }, 15_000);
    expect(Date.now() - stopped).toBeLessThan(15_000);
    expect(JSON.parse(run.result!)).toEqual({ slept: 0, attempt: 2 });
    expect(dev.stdout()).toContain(
      `drain timeout (10s) passed with 1 run(s) still running: abandoned ${id}; their leases were released: 1 run(s) get another attempt from the next worker\n`,
    );
    expect(dev.stdout()).toContain(
      `↻ slow ${id} attempt 1 failed (attempt 1 was ended when its worker stopped with it still running after its drain timeout (its claim was released, not left to expire)); retry 2/2`,
    );
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 120_000);
});
