/**
 * Promises a run costs on the hot path (issue 15, cold process). A process running workflows keeps
 * its `AsyncLocalStorage` on, so every promise runs an init hook (and stores the context on the
 * promise) and every reaction a before and an after hook; a fresh process runs all of that
 * interpreted. Counted here with an init hook of our own, on a real SQLite file: the claim → run →
 * complete path must not grow its promises back.
 */
import { createHook } from "node:async_hooks";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

const oneStep = defineWorkflow("budget-one-step", { handler: async (_p, ctx) => ctx.run("only", () => 1) });
const fiveSteps = defineWorkflow("budget-five-steps", {
  handler: async (_p, ctx) => {
    for (let i = 0; i < 5; i++) await ctx.run(`step-${i}`, () => i);
    return 5;
  },
});

/** Promises created while `work` runs, per run (`runs`). */
async function promisesPerRun(runs: number, work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") count++;
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return count / runs;
}

async function started(): Promise<Engine> {
  const e = createEngine({
    database: join(dir, `budget${n++}.db`),
    workflows: [oneStep, fiveSteps],
    scheduler: false,
  });
  engines.push(e);
  await e.start();
  return e;
}

describe("promises per run", () => {
  it("a one-step run started and awaited here creates at most 55 promises (was 82)", async () => {
    await started();
    await (await oneStep.start({ warm: true })).result({ timeoutMs: 5000 });
    const perRun = await promisesPerRun(20, async () => {
      for (let i = 0; i < 20; i++) await (await oneStep.start({ i })).result({ timeoutMs: 5000 });
    });
    expect(perRun).toBeLessThanOrEqual(55);
  });

  it("a five-step run among 20 started at once creates at most 70 promises (was 102)", async () => {
    const e = await started();
    await (await fiveSteps.start({ warm: true })).result({ timeoutMs: 5000 });
    const perRun = await promisesPerRun(20, async () => {
      const handles = await e.enqueueMany(
        fiveSteps,
        Array.from({ length: 20 }, (_, i) => ({ i })),
      );
      await Promise.all(handles.map((h) => h.result({ timeoutMs: 5000 })));
    });
    expect(perRun).toBeLessThanOrEqual(70);
  });
});
