/**
 * `signal()` from `tako.sh` inside workflows `sluice dev` loads takes the same options as
 * `sluice`'s own: `{ buffer }` keeps a signal no run waits on yet for the next `waitFor`, and a
 * bad buffer fails the call with a clear error. The real binary, a separate `sluice dev` process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const FILES = {
  "workflows/pay.ts": `
    import { defineWorkflow, signal } from "tako.sh";
    export default defineWorkflow<{ orderId: string; buffer: string }>("pay", {
      retries: 0,
      handler: async (p, ctx) =>
        ctx.run("notify", () => signal(\`paid:\${p.orderId}\`, { amount: 42 }, { buffer: p.buffer })),
    });`,
  "workflows/await-payment.ts": `
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow<{ orderId: string }>("await-payment", {
      handler: async (p, ctx) => ctx.waitFor(\`paid:\${p.orderId}\`, { timeout: "10s" }),
    });`,
};

describe("tako.sh signal() in a workflow sluice dev runs", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => ({ root, dev } = await startDev(FILES)));
  afterAll(() => stopDev(dev));

  it("{ buffer } keeps a signal sent before the run waits; a bad buffer fails the step with a clear error", async () => {
    const enqueue = (...args: string[]) => finished(spawnSluice(["enqueue", ...args, "--wait"], root));
    const sent = await enqueue("pay", '{"orderId":"o1","buffer":"1h"}');
    expect(sent, sent.err).toMatchObject({ code: 0, out: "0\n" });
    const got = await enqueue("await-payment", '{"orderId":"o1"}');
    expect(got, got.err).toMatchObject({ code: 0 });
    expect(JSON.parse(got.out)).toEqual({ amount: 42 });
    const bad = await enqueue("pay", '{"orderId":"o2","buffer":"soon"}');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/failed: invalid duration "soon": use milliseconds/);
  });
});
