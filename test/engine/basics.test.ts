import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine, signal } from "../../src/index.js";
import { delay, tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
function engine(opts: Parameters<typeof createEngine>[0] = {}) {
  const e = createEngine({ database: join(dir, `e${n++}.db`), random: () => 0.5, ...opts });
  engines.push(e);
  return e;
}
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

describe("defineWorkflow end to end on SQLite", () => {
  it("runs checkpointed steps and returns the handler's result through a handle", async () => {
    const calls: string[] = [];
    const wf = defineWorkflow<{ orderId: string }, { charged: number }>("fulfill-order", {
      handler: async (payload, ctx) => {
        const order = await ctx.run("load-order", () => {
          calls.push("load");
          return { id: payload.orderId, total: 42 };
        });
        const charged = await ctx.run("charge", (step) => {
          calls.push(`charge:${step.runId}:${step.stepName}:${step.stepAttempt}`);
          return order.total;
        });
        return { charged };
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const run = await wf.start({ orderId: "ord_1" });
    expect(run.deduplicated).toBe(false);
    expect(await run.result({ timeoutMs: 5000 })).toEqual({ charged: 42 });
    expect(calls).toEqual(["load", `charge:${run.id}:charge:1`]);
    const steps = await e.store.getSteps(run.id);
    expect(steps.map((s) => [s.key, s.status, s.value])).toEqual([
      ["load-order", "done", '{"id":"ord_1","total":42}'],
      ["charge", "done", "42"],
    ]);
    const info = await run.info();
    expect(info).toMatchObject({ status: "succeeded", attempt: 1, maxAttempts: 3, payload: { orderId: "ord_1" } });
  });

  it("retries a failing run, reusing completed steps, and honours per-enqueue retries", async () => {
    let loads = 0;
    let tries = 0;
    const wf = defineWorkflow("flaky", {
      retries: 1,
      backoff: { base: 10, max: 10 },
      handler: async (_p, ctx) => {
        await ctx.run("load", () => ++loads);
        tries++;
        if (ctx.attempt < 3) throw new Error(`transient ${ctx.attempt}`);
        return ctx.attempt;
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const failed = await wf.start(null);
    await expect(failed.result({ timeoutMs: 5000 })).rejects.toThrow(/transient 2/);
    expect((await failed.info()).attempt).toBe(2);
    const ok = await wf.start(null, { retries: 2 });
    expect(await ok.result({ timeoutMs: 5000 })).toBe(3);
    expect(loads).toBe(2); // once per run: retries replay the checkpoint
    expect(tries).toBe(5);
  });

  it("bail cancels and fail fails, both without retry, even if the throw is caught", async () => {
    let attempts = 0;
    const wf = defineWorkflow<{ mode: string }>("outcomes", {
      handler: async (p, ctx) => {
        attempts++;
        try {
          if (p.mode === "bail") ctx.bail("not needed");
          if (p.mode === "fail") ctx.fail(new Error("permanent"));
        } catch {
          // swallowed on purpose: the decision still stands
        }
        return "done";
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const b = await wf.start({ mode: "bail" });
    await expect(b.result({ timeoutMs: 5000 })).rejects.toMatchObject({
      code: "RUN_CANCELLED",
      message: expect.stringMatching(/not needed/),
    });
    const f = await wf.start({ mode: "fail" });
    await expect(f.result({ timeoutMs: 5000 })).rejects.toMatchObject({
      code: "RUN_FAILED",
      message: expect.stringMatching(/permanent/),
    });
    expect(attempts).toBe(2);
    expect((await b.info()).status).toBe("cancelled");
    expect((await f.info()).status).toBe("failed");
  });

  it("step retries happen inside the attempt; retry:false fails the run at once", async () => {
    let n1 = 0;
    let n2 = 0;
    const wf = defineWorkflow<{ permanent: boolean }>("step-retries", {
      handler: async (p, ctx) => {
        if (p.permanent) {
          await ctx.run(
            "card-declined",
            () => {
              n2++;
              throw new Error("declined");
            },
            { retry: false },
          );
        }
        return ctx.run(
          "call-provider",
          () => {
            if (++n1 < 3) throw new Error("flaky provider");
            return "ok";
          },
          { retries: 2, backoff: { base: 5, max: 20 } },
        );
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const ok = await wf.start({ permanent: false });
    expect(await ok.result({ timeoutMs: 5000 })).toBe("ok");
    expect((await ok.info()).attempt).toBe(1);
    const dead = await wf.start({ permanent: true });
    await expect(dead.result({ timeoutMs: 5000 })).rejects.toThrow(/declined/);
    expect(n2).toBe(1);
    expect((await dead.info()).attempt).toBe(1);
  });

  it("long sleeps park the run (no slot held) and resume at their wake time without spending attempts", async () => {
    const wf = defineWorkflow("napper", {
      handler: async (_p, ctx) => {
        const before = await ctx.run("before", () => Date.now());
        await ctx.sleep("nap", 300);
        return { slept: Date.now() - before, attempt: ctx.attempt };
      },
    });
    const e = engine({ workflows: [wf], inlineSleepMs: 100, worker: { concurrency: 1 } });
    await e.start();
    const run = await wf.start(null);
    await delay(120);
    const parked = (await run.info()).status;
    expect(parked).toBe("waiting");
    expect(e.worker!.busy).toBe(0);
    const result = (await run.result({ timeoutMs: 5000 })) as { slept: number; attempt: number };
    expect(result.slept).toBeGreaterThanOrEqual(300);
    expect(result.attempt).toBe(1);
  });

  it("waitFor returns the signal payload; signal returns how many runs it woke; timeouts return null", async () => {
    const wf = defineWorkflow<{ orderId: string; timeout?: number }>("approval", {
      handler: async (p, ctx) => {
        const decision = await ctx.waitFor<{ approved: boolean; by: string }>(
          `approval:order-${p.orderId}`,
          p.timeout ? { timeout: p.timeout } : {},
        );
        if (decision === null) ctx.bail("approval timed out");
        return decision;
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const a = await wf.start({ orderId: "1" });
    const b = await wf.start({ orderId: "1" });
    const c = await wf.start({ orderId: "2", timeout: 200 });
    await delay(150);
    expect(await signal("approval:order-1", { approved: true, by: "ana" })).toBe(2);
    expect(await a.result({ timeoutMs: 5000 })).toEqual({ approved: true, by: "ana" });
    expect(await b.result({ timeoutMs: 5000 })).toEqual({ approved: true, by: "ana" });
    await expect(c.result({ timeoutMs: 5000 })).rejects.toThrow(/approval timed out/);
    expect(await signal("approval:order-2", { approved: true })).toBe(0);
    // Buffered: sent before any run waits, taken by the next waitFor (once).
    expect(await signal("approval:order-3", { approved: true, by: "early" }, { buffer: "1m" })).toBe(0);
    const d = await wf.start({ orderId: "3" });
    expect(await d.result({ timeoutMs: 5000 })).toEqual({ approved: true, by: "early" });
    const f = await wf.start({ orderId: "3", timeout: 200 });
    await expect(f.result({ timeoutMs: 5000 })).rejects.toThrow(/approval timed out/);
    await expect(signal("x", null, { buffer: "soon" })).rejects.toMatchObject({ code: "INVALID_DURATION" });
  });

  it("deduplicates by id and refuses conflicting ids", async () => {
    const wf = defineWorkflow<{ orderId: string }>("dedup", { handler: async (p) => p.orderId });
    const other = defineWorkflow<{ orderId: string }>("other", { handler: async (p) => p.orderId });
    const e = engine({ workflows: [wf, other] });
    await e.start();
    const first = await wf.start({ orderId: "ord_123" }, { id: "fulfill:ord_123" });
    expect(first.id).toBe("fulfill:ord_123");
    await first.result({ timeoutMs: 5000 });
    const again = await wf.start({ orderId: "ord_123" }, { id: "fulfill:ord_123" });
    expect(again.deduplicated).toBe(true);
    await expect(wf.enqueue({ orderId: "ord_999" }, { id: "fulfill:ord_123" })).rejects.toMatchObject({
      code: "RUN_ID_CONFLICT",
    });
    await expect(other.enqueue({ orderId: "ord_123" }, { id: "fulfill:ord_123" })).rejects.toMatchObject({
      code: "RUN_ID_CONFLICT",
    });
    expect(await e.store.countRuns({})).toBe(1);
  });

  it("captures console output per run and per step", async () => {
    const wf = defineWorkflow("chatty", {
      handler: async (_p, ctx) => {
        console.log("in the workflow");
        await ctx.run("work", (step) => {
          console.log("inside the step");
          step.logger.info("structured", { n: 1 });
        });
        ctx.logger.warn("after");
      },
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const run = await wf.start(null);
    await run.result({ timeoutMs: 5000 });
    await e.committer.drain();
    const logs = await e.store.getLogs(run.id);
    expect(logs.map((l) => [l.stepKey, l.level, l.message])).toEqual([
      [null, "info", "in the workflow"],
      ["work", "info", "inside the step"],
      ["work", "info", 'structured {"n":1}'],
      [null, "warn", "after"],
    ]);
  });

  it("refuses unknown workflows and bad payloads without writing anything", async () => {
    const wf = defineWorkflow("known", { handler: async () => 1 });
    const e = engine({ workflows: [wf], maxValueBytes: 1024 });
    await e.start();
    await expect(e.enqueueRun("nope", {})).rejects.toThrow(/unknown workflow "nope"; known workflows: known/);
    await expect(wf.enqueue("x".repeat(5000))).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(await e.store.countRuns({})).toBe(0);
  });
});

describe("enqueueMany with ids and waitForRuns", () => {
  it("gives each run its id, deduplicates a repeated batch and waits for every run in order", async () => {
    let executions = 0;
    const wf = defineWorkflow<{ n: number }, number>("double", {
      handler: async (p, ctx) => ctx.run("double", () => (executions++, p.n * 2)),
    });
    const e = engine({ workflows: [wf] });
    await e.start();
    const payloads = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const ids = ["double-1", "double-2", "double-3"];
    const first = await e.enqueueMany("double", payloads, { ids });
    expect(first.map((h) => [h.id, h.deduplicated])).toEqual(ids.map((id) => [id, false]));
    const runs = await e.waitForRuns(ids, 5000);
    expect(runs.map((r) => [r.id, r.status, r.result])).toEqual([
      ["double-1", "succeeded", "2"],
      ["double-2", "succeeded", "4"],
      ["double-3", "succeeded", "6"],
    ]);
    const again = await e.enqueueMany("double", payloads, { ids });
    expect(again.map((h) => h.deduplicated)).toEqual([true, true, true]);
    expect(executions).toBe(3);
  });

  it("refuses ids that do not match the payloads and enqueues nothing", async () => {
    const wf = defineWorkflow("noop", { handler: async () => 1 });
    const e = engine({ workflows: [wf], worker: false });
    await e.start();
    await expect(e.enqueueMany("noop", [1, 2], { ids: ["only-one"] })).rejects.toMatchObject({ code: "INVALID_IDS" });
    expect(await e.store.getRun("only-one")).toBeNull();
  });

  it("waitForRuns times out when a run does not finish in time", async () => {
    const wf = defineWorkflow("idle", { handler: async () => 1 });
    const e = engine({ workflows: [wf], worker: false });
    await e.start();
    const [h] = await e.enqueueMany("idle", [null]);
    await expect(e.waitForRuns([h!.id], 50)).rejects.toMatchObject({ code: "WAIT_TIMEOUT" });
  });
});
