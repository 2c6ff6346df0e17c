/**
 * A waiter on a run this process has just created skips its first read (issue 15: that read
 * was 6.6 % of W3's CPU), yet still sees the run end when another process finishes it — a real
 * `sluice worker` process on the same SQLite file — whether it ends before or after the wait.
 */
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { LANE_WORKFLOWS } from "../lanes/fixtures.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
const stores: Store[] = [];
const workers: SluiceProcess[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});
afterAll(async () => {
  for (const w of workers) {
    w.proc.kill("SIGTERM");
    await w.exited;
  }
  for (const s of stores) await s.close();
});

/** Counts the run reads of `e`'s store. */
function countReads(e: Engine): { reads: number } {
  const seen = { reads: 0 };
  const store = e.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const verb of ["getRun", "getRuns"]) {
    const read = store[verb]!.bind(store);
    store[verb] = (...a: unknown[]) => ((seen.reads += 1), read(...a));
  }
  return seen;
}

const quick = defineWorkflow<{ i: number }>("created-quick", { handler: async (p, ctx) => ctx.run("one", () => p.i) });

describe("waiters on runs created here", () => {
  it("waiting on runs just enqueued (more than the worker's slots) reads none of them", async () => {
    const e = createEngine({
      database: join(dir, `c${n++}.db`),
      workflows: [quick],
      worker: { concurrency: 2 },
      scheduler: false,
    });
    engines.push(e);
    await e.start();
    await (await quick.start({ i: -1 })).result({ timeoutMs: 5000 });
    const seen = countReads(e);
    const handles = await e.enqueueMany(
      quick,
      Array.from({ length: 20 }, (_, i) => ({ i })),
    );
    const runs = await e.waitForRuns(
      handles.map((h) => h.id),
      10_000,
    );
    expect(runs.map((r) => r.status)).toEqual(Array(20).fill("succeeded"));
    expect(runs.map((r) => JSON.parse(r.result!) as number)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(seen.reads).toBe(0);
  });

  it("a deduplicated enqueue of a finished run is read, not awaited forever", async () => {
    const e = createEngine({ database: join(dir, `c${n++}.db`), workflows: [quick], scheduler: false });
    engines.push(e);
    await e.start();
    const first = await e.enqueueRun(quick, { i: 7 }, { id: "dedup-7" });
    await e.waitForRun(first.id, 5000);
    const again = await e.enqueueRun(quick, { i: 7 }, { id: "dedup-7" });
    expect(again.deduplicated).toBe(true);
    const t0 = Date.now();
    expect(JSON.parse((await e.waitForRun(again.id, 5000)).result!)).toBe(7);
    expect(Date.now() - t0).toBeLessThan(400);
  });

  describe("finished by a `sluice worker` process", () => {
    let file = "";
    let worker: SluiceProcess | null = null;
    /** A fresh project and its own worker process per test. */
    async function startWorker(): Promise<void> {
      const root = makeProject(LANE_WORKFLOWS);
      file = join(root, ".sluice", "sluice.db");
      worker = spawnSluice(["worker"], root);
      workers.push(worker);
      await worker.waitFor(/worker \S+ ready/, 60_000);
    }
    /**
     * A started engine whose worker knows no workflow (the skip applies only with a running worker):
     * every run it enqueues is finished by the other process.
     */
    async function producer(): Promise<Engine> {
      const e = createEngine({ database: file, scheduler: false });
      engines.push(e);
      await e.start();
      return e;
    }

    it("seen when it ends after the wait began", async () => {
      await startWorker();
      const e = await producer();
      const h = await e.enqueueRun("hello", { n: 1 });
      const run = await e.waitForRun(h.id, 10_000);
      expect(run.status).toBe("succeeded");
      expect((JSON.parse(run.result!) as { pid: number }).pid).toBe(worker!.proc.pid);
    }, 90_000);

    it("seen at once when it ended before anyone waited", async () => {
      await startWorker();
      const e = await producer();
      const other = openSqliteStore({ path: file });
      stores.push(other);
      const h = await e.enqueueRun("hello", { n: 2 });
      // Through another connection, so the producer's store and waiters see nothing of it.
      await eventually(async () => (await other.getRun(h.id))?.status === "succeeded", 10_000);
      // The producer's store hears outside commits on its watch, a 25 ms interval: Node runs that
      // timer's next round before this later one, however loaded the machine, so the waiters have
      // heard of the finish by then (without this the test raced the watch under load).
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const run = await e.waitForRun(h.id, 10_000);
      expect(run.status).toBe("succeeded");
      expect((JSON.parse(run.result!) as { pid: number }).pid).toBe(worker!.proc.pid);
      // Read at once (the outside change since its creation is known), not at the waiters' first
      // poll tick 500 ms on, nor at the full poll 5 s on.
      expect(Date.now() - t0).toBeLessThan(400);
    }, 90_000);
  });
});
