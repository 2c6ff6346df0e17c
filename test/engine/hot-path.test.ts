/**
 * What one run costs the store on the hot path (issue 15), counted on a real SQLite file:
 * a one-step run started and finished in this process is two commits and no read, and the
 * shortcuts that make it so do not delay work that appears meanwhile.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import type { Command } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
function engine(opts: Parameters<typeof createEngine>[0] = {}) {
  const e = createEngine({ database: join(dir, `hot${n++}.db`), random: () => 0.5, scheduler: false, ...opts });
  engines.push(e);
  return e;
}
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

/** Records every commit's verbs and every run read of `e`'s store. */
function spy(e: Engine): { commits: string[][]; reads: number } {
  const seen = { commits: [] as string[][], reads: 0 };
  const store = e.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const commit = store.commit!.bind(store);
  store.commit = (commands: unknown) => {
    seen.commits.push((commands as Command[]).map((c) => c.verb));
    return commit(commands);
  };
  for (const verb of ["getRun", "getRuns"]) {
    const read = store[verb]!.bind(store);
    store[verb] = (...a: unknown[]) => ((seen.reads += 1), read(...a));
  }
  return seen;
}

const oneStep = defineWorkflow("hot-one-step", { handler: async (_p, ctx) => ctx.run("only", () => 1) });

/** One run through, then a pause: the claim loop is asleep on its 1 s poll (no timer is pending). */
async function settleIdle(): Promise<void> {
  await (await oneStep.start({ warm: true })).result({ timeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 100));
}

describe("hot path", () => {
  it("a one-step run started and awaited here costs two commits, no extra claim and no read", async () => {
    const e = engine({ workflows: [oneStep] });
    await e.start();
    await settleIdle();
    const seen = spy(e);
    for (let i = 0; i < 5; i++) expect(await (await oneStep.start({ i })).result({ timeoutMs: 5000 })).toBe(1);
    expect(seen.reads).toBe(0);
    // enqueue (created leased), then the checkpoint written ahead with the completion in one
    // transaction: no claim rides it, since nothing was due at the worker's last claim and nothing
    // new came since (it would come back empty).
    expect(seen.commits).toEqual(
      Array(5)
        .fill([["enqueue"], ["saveSteps", "complete"]])
        .flat(),
    );
  });

  it("a run that finished before its result is asked for is read once and answered at once", async () => {
    const e = engine({ workflows: [oneStep] });
    await e.start();
    const handle = await oneStep.start({ late: true });
    while ((await e.store.getRun(handle.id))?.status !== "succeeded") await new Promise((r) => setTimeout(r, 5));
    const seen = spy(e);
    const t0 = performance.now();
    expect(await handle.result({ timeoutMs: 5000 })).toBe(1);
    expect(performance.now() - t0).toBeLessThan(250); // the waiters' poll is 500 ms
    expect(seen.reads).toBe(1);
  });

  it("a short retry backoff set by a completion still wakes the idle worker on time", async () => {
    let attempts = 0;
    const flaky = defineWorkflow("hot-flaky", {
      retries: 1,
      backoff: { base: 50, max: 50 },
      handler: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("first attempt fails");
        return attempts;
      },
    });
    const e = engine({ workflows: [flaky, oneStep] });
    await e.start();
    await settleIdle();
    const t0 = performance.now();
    expect(await (await flaky.start({})).result({ timeoutMs: 5000 })).toBe(2);
    // Without the wake-up the loop would sleep its 1 s poll before claiming the retry.
    expect(performance.now() - t0).toBeLessThan(700);
  });

  it("a run parked on a short timer is taken again when the timer is due, not at the next poll", async () => {
    const sleeper = defineWorkflow("hot-sleeper", {
      handler: async (_p, ctx) => {
        await ctx.sleep("nap", "100ms");
        return "awake";
      },
    });
    const e = engine({ workflows: [sleeper, oneStep], inlineSleep: 0 });
    await e.start();
    await settleIdle();
    const t0 = performance.now();
    const handle = await sleeper.start({});
    expect(await handle.result({ timeoutMs: 5000 })).toBe("awake");
    expect(performance.now() - t0).toBeLessThan(700);
    expect((await e.store.getSteps(handle.id)).map((s) => s.kind)).toEqual(["sleep"]);
  });
});
