/**
 * `Worker.holdClaims` (the drain of a release switch) in one process on a real SQLite file: while
 * held, no new claim starts, neither by the claim loop nor in the enqueue transaction; the hold
 * resolves once the claims held have ended; `resumeClaims` starts the waiting work.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { delay, tempDir } from "../helpers/tmp.js";

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

describe("Worker.holdClaims", () => {
  it("waits for the running claim, claims nothing new meanwhile, and claims again on resume", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineWorkflow("slow", { handler: async (_p, ctx) => ctx.run("work", () => gate.then(() => "slow")) });
    const quick = defineWorkflow("quick", { handler: async () => "quick" });
    const e = createEngine({ database: join(tempDir(), "hold.db"), workflows: [slow, quick] });
    engines.push(e);
    await e.start();
    const first = await slow.start({});
    while ((await e.store.getRun(first.id))!.status !== "running") await delay(10);
    let settled: { left: number } | null = null;
    const held = e.worker!.holdClaims(10_000).then((r) => (settled = r));
    // Enqueued in this process while held: not taken in the enqueue transaction, nor by the loop.
    const next = await quick.start({});
    await delay(300);
    expect((await e.store.getRun(next.id))!.status).toBe("pending");
    expect(settled).toBeNull();
    release();
    await held;
    expect(settled).toEqual({ left: 0 });
    expect((await e.store.getRun(first.id))!.status).toBe("succeeded");
    await delay(200);
    expect((await e.store.getRun(next.id))!.status).toBe("pending");
    e.worker!.resumeClaims();
    expect(await next.result({ timeoutMs: 5000 })).toBe("quick");
  });

  it("gives up after its timeout and reports the claims still held", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineWorkflow("slow2", { handler: async (_p, ctx) => ctx.run("work", () => gate.then(() => 1)) });
    const e = createEngine({ database: join(tempDir(), "hold2.db"), workflows: [slow] });
    engines.push(e);
    await e.start();
    const run = await slow.start({});
    while ((await e.store.getRun(run.id))!.status !== "running") await delay(10);
    expect(await e.worker!.holdClaims(100)).toEqual({ left: 1 });
    const aborted = new AbortController();
    const pending = e.worker!.holdClaims(60_000, aborted.signal);
    aborted.abort();
    expect(await pending).toEqual({ left: 1 });
    release();
    e.worker!.resumeClaims();
    expect(await run.result({ timeoutMs: 5000 })).toBe(1);
  });
});
