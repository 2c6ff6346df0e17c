/**
 * A concurrency limit given at enqueue (`enqueue(…, { concurrency })`) holds on an engine
 * with its own worker: such runs are not created already leased to the local worker (that
 * would skip the claim's check), so runs sharing the key never overlap.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow } from "../../src/index.js";
import { tempDir } from "../helpers/tmp.js";

const engine = createEngine({ database: join(tempDir("sluice-conc-"), "sluice.db"), captureConsole: false });
afterAll(() => engine.stop({ drainMs: 1000 }));

describe("concurrency keys given at enqueue", () => {
  it("runs sharing a key run one at a time on the built-in worker; without the key they overlap", async () => {
    const spans = new Map<string, [number, number]>();
    const slow = defineWorkflow("slow", {
      handler: async (_p, ctx) => {
        const start = Date.now();
        await new Promise((r) => setTimeout(r, 150));
        spans.set(ctx.runId, [start, Date.now()]);
      },
    });
    await engine.register([slow]);
    await engine.start();
    const overlaps = async (options: Parameters<typeof engine.enqueueRun>[2]) => {
      const handles = [];
      for (let i = 0; i < 3; i++) handles.push(await engine.enqueueRun("slow", { i }, options));
      await Promise.all(handles.map((h) => engine.waitForRun(h.id, 10_000)));
      const s = handles.map((h) => spans.get(h.id)!).sort((a, b) => a[0] - b[0]);
      return s.some((span, i) => i > 0 && span[0] < s[i - 1]![1]);
    };
    expect(await overlaps({ concurrency: { key: "one-at-a-time", limit: 1 } })).toBe(false);
    expect(await overlaps({})).toBe(true);
  }, 30_000);
});
