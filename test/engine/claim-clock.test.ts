/**
 * A step's `started_at` is on the store's clock: the claim's time plus what has elapsed since.
 * "Since" is from when the claim's transaction was sent, not from when its answer arrived: a
 * claim that took long to answer (thousands of runs claimed at once) must not make the steps it
 * runs look as if they started that much earlier.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import type { Command } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

/** How long a claim's answer is held back after its transaction committed. */
const SLOW_MS = 400;

/**
 * Holds back the answer of every commit that claims (a `claim`, or an enqueue that creates runs
 * leased to this worker) by {@link SLOW_MS}, after the real transaction on the real file: as a
 * claim of many runs takes long to come back. The store's clock read inside it is untouched.
 */
function slowClaims(e: Engine): void {
  const store = e.store as unknown as { commit: (c: Command[]) => Promise<unknown> };
  const commit = store.commit.bind(store);
  store.commit = async (commands) => {
    const result = await commit(commands);
    const claims = commands.some(
      (c) => c.verb === "claim" || (c.verb === "enqueue" && c.request.claimFor !== undefined),
    );
    if (claims) await new Promise((r) => setTimeout(r, SLOW_MS));
    return result;
  };
}

describe("the claim's clock", () => {
  for (const how of ["claimed by the worker", "created leased by its enqueue"] as const) {
    it(`a step's started_at is when its body ran, however long the claim took to answer (${how})`, async () => {
      const bodyRanAt: number[] = [];
      const wf = defineWorkflow(`clock-${n}`, {
        handler: async (_p, ctx) =>
          ctx.run("stamp", () => {
            bodyRanAt.push(Date.now());
            return 1;
          }),
      });
      const e = createEngine({ database: join(dir, `clock${n++}.db`), workflows: [wf], scheduler: false });
      engines.push(e);
      await e.start();
      slowClaims(e);
      let id: string;
      if (how === "created leased by its enqueue") {
        id = (await wf.start({})).id;
      } else {
        // Enqueued by another engine on the same file (no worker there): this worker claims it.
        const other = createEngine({ database: join(dir, `clock${n - 1}.db`), worker: false, scheduler: false });
        engines.push(other);
        id = (await other.enqueueRun(wf.name, {})).id;
        e.worker!.poke();
      }
      await e.waitForRun(id, "10s");
      const [step] = await e.store.getSteps(id);
      expect(bodyRanAt).toHaveLength(1);
      // The body read the wall clock inside the step; started_at was taken just before it ran.
      // Counted from the claim's answer instead, it would be about SLOW_MS early.
      expect(step!.startedAt).toBeGreaterThan(bodyRanAt[0]! - SLOW_MS / 4);
      expect(step!.startedAt).toBeLessThanOrEqual(bodyRanAt[0]! + 5);
    });
  }
});
