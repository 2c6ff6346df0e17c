/**
 * `ctx.run` checks only the options a call gives (the defaults are valid as they are): invalid
 * retries or backoff fail the run at once, without retrying it; null means the default.
 */
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

const badRetries = defineWorkflow("opts-bad-retries", {
  retries: 3,
  handler: async (_p, ctx) => ctx.run("s", () => 1, { retries: -1 }),
});
const badBackoff = defineWorkflow("opts-bad-backoff", {
  retries: 3,
  handler: async (_p, ctx) => ctx.run("s", () => 1, { backoff: { base: 10, max: 5 } }),
});
const nullOptions = defineWorkflow("opts-null", {
  handler: async (_p, ctx) =>
    ctx.run("s", () => 2, { retries: null, backoff: null } as unknown as Parameters<typeof ctx.run>[2]),
});

describe("ctx.run options", () => {
  it("fails the run on invalid retries or backoff, and takes null as the default", async () => {
    const e = createEngine({
      database: join(dir, `opts${n++}.db`),
      workflows: [badRetries, badBackoff, nullOptions],
      scheduler: false,
    });
    engines.push(e);
    await e.start();
    const r = await badRetries.start({});
    await expect(r.result({ timeoutMs: 5000 })).rejects.toThrow(/retries of step "s" must be a whole number/);
    const b = await badBackoff.start({});
    await expect(b.result({ timeoutMs: 5000 })).rejects.toThrow(/backoff of step "s" must have 0 <= base <= max/);
    // Failed terminally: one attempt each, although the workflow allows retries.
    expect((await e.store.getRun(r.id))?.attempt).toBe(1);
    expect((await e.store.getRun(b.id))?.attempt).toBe(1);
    expect(await (await nullOptions.start({})).result({ timeoutMs: 5000 })).toBe(2);
  });
});
