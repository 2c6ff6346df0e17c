/**
 * Durations in the engine's public API are `Duration`s named for what they bound (issue 10):
 * `"30s"` strings and ms numbers under the new names, the `…Ms` names still read as aliases.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine, WaitTimeoutError } from "../../src/index.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drain: "1s" });
});

const parked = defineWorkflow<unknown, string>("parked", {
  handler: async (_p, ctx) => {
    await ctx.sleep("nap", "2s");
    return "woke";
  },
});
const quick = defineWorkflow<unknown, string>("quick", { handler: async () => "done" });

function engine(opts: Parameters<typeof createEngine>[0]) {
  const e = createEngine({ database: join(dir, `d${n++}.db`), scheduler: false, ...opts });
  engines.push(e);
  return e;
}

describe("duration options", () => {
  it("reads timeouts as Durations: result({ timeout }), waitForRun and waitForRuns", async () => {
    const e = engine({ workflows: [parked, quick], worker: { poll: "50ms", lease: "10s" }, inlineSleep: 0 });
    await e.start();
    const slow = await parked.start({});
    await expect(slow.result({ timeout: "100ms" })).rejects.toBeInstanceOf(WaitTimeoutError);
    await expect(e.waitForRun(slow.id, "50ms")).rejects.toThrow(/did not finish within 50 ms/);
    const fast = await quick.start({});
    expect(await fast.result({ timeout: "5s" })).toBe("done");
    const [run] = await e.waitForRuns([fast.id], { seconds: 5 });
    expect(run?.status).toBe("succeeded");
    // inlineSleep 0 parked the 2 s sleep instead of holding the slot.
    expect((await e.getRun(slow.id))?.status).toBe("waiting");
  });

  it("keeps the deprecated …Ms names working, and lets the new name win", async () => {
    const e = engine({ workflows: [parked], inlineSleepMs: 60_000, inlineSleep: 0, worker: { pollMs: 50 } });
    await e.start();
    const h = await parked.start({});
    await expect(h.result({ timeoutMs: 100 })).rejects.toBeInstanceOf(WaitTimeoutError);
    expect((await e.getRun(h.id))?.status).toBe("waiting");
  });

  it("refuses a duration that is not one, saying so", () => {
    expect(() => engine({ inlineSleep: "a while" })).toThrow(expect.objectContaining({ code: "INVALID_DURATION" }));
  });
});

describe("ctx.sleep arguments", () => {
  it("fails a run that passes the duration alone with the call's right form, not 'invalid duration undefined'", async () => {
    const wrong = defineWorkflow("sleep-duration-only", {
      retries: 0,
      // A plain-JavaScript workflow file has no type check: `ctx.sleep("1s")` reaches the engine as is.
      handler: async (_p, ctx) => (ctx.sleep as (name: string) => Promise<void>)("1s"),
    });
    const e = engine({ workflows: [wrong], worker: { poll: "50ms" } });
    await e.start();
    const h = await wrong.start({});
    const [run] = await e.waitForRuns([h.id], { seconds: 5 });
    expect(run?.status).toBe("failed");
    expect(run?.error?.message).toContain('ctx.sleep takes a name and a duration: ctx.sleep("wait", "1s")');
  });
});
