/**
 * Step checkpoints written ahead (`worker/ahead-saves.ts`), on a real SQLite file: a `ctx.run`
 * returns its value before its checkpoint's commit, and everything durable the run does next is
 * ordered after that checkpoint — the next step body starts only once it is durable, the outcome
 * shares its transaction (or follows it when a failed batch is retried), a park follows it, and a
 * refused checkpoint writes no outcome.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import type { Command, CommandResult } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
function engine(workflows: NonNullable<Parameters<typeof createEngine>[0]>["workflows"]) {
  const e = createEngine({ database: join(dir, `ahead${n++}.db`), random: () => 0.5, scheduler: false, workflows });
  engines.push(e);
  return e;
}
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

/**
 * Records the verbs of every batch `e`'s store commits, without the worker's claims riding them;
 * `fail` may throw instead of committing.
 */
function spy(e: Engine, fail: (verbs: string[]) => Error | null = () => null): string[][] {
  const commits: string[][] = [];
  const store = e.store as unknown as { commit: (c: Command[]) => Promise<CommandResult[]> };
  const commit = store.commit.bind(store);
  store.commit = (commands) => {
    const verbs = commands.map((c) => c.verb).filter((v) => v !== "claim");
    const error = fail(verbs);
    commits.push(error ? [...verbs, "(failed)"] : verbs);
    return error ? Promise.reject(error) : commit(commands);
  };
  return commits;
}

/** A `fail` for {@link spy}: the first batch with a checkpoint fails as a locked database does (transient). */
function failFirstCheckpoint(): (verbs: string[]) => Error | null {
  let failed = false;
  return (verbs) => {
    if (failed || !verbs.includes("saveSteps")) return null;
    failed = true;
    return Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
  };
}

describe("step checkpoints written ahead", () => {
  it("a step body starts only once the checkpoint of the step before it is durable", async () => {
    const ref: { e?: Engine } = {};
    const wf = defineWorkflow("ahead-order", {
      handler: async (_p, ctx) => {
        await ctx.run("first", () => 1);
        // What the store holds when the second body runs (read on the store's own connection).
        return ctx.run("second", async (step) =>
          (await ref.e!.store.getSteps(step.runId)).map((s) => `${s.key}:${s.status}`),
        );
      },
    });
    ref.e = engine([wf]);
    await ref.e.start();
    expect(await (await wf.start({})).result({ timeoutMs: 5000 })).toEqual(["first:done"]);
  });

  it("a failed batch is retried checkpoint first, then the outcome; the body runs once", async () => {
    let bodies = 0;
    const wf = defineWorkflow("ahead-retry", {
      handler: async (_p, ctx) => ctx.run("only", () => ++bodies),
    });
    const e = engine([wf]);
    await e.start();
    const commits = spy(e, failFirstCheckpoint());
    const handle = await wf.start({});
    expect(await handle.result({ timeoutMs: 10_000 })).toBe(1);
    expect(bodies).toBe(1);
    const steps = await e.store.getSteps(handle.id);
    expect(steps.map((s) => [s.key, s.status])).toEqual([["only", "done"]]);
    const writes = commits.filter((c) => c.includes("saveSteps") || c.includes("complete"));
    expect(writes).toEqual([["saveSteps", "complete", "(failed)"], ["saveSteps"], ["complete"]]);
  });

  it("a checkpoint refused for a stale lease writes no outcome", async () => {
    const ref: { e?: Engine } = {};
    const wf = defineWorkflow("ahead-fenced", {
      handler: async (_p, ctx) =>
        ctx.run("only", (step) => {
          // Another claim takes the run while the body runs: this claim's writes are refused.
          (ref.e!.store as unknown as SqliteStore).db
            .prepare("UPDATE runs SET claims = claims + 1 WHERE id = ?")
            .run(step.runId);
          return 1;
        }),
    });
    const e = (ref.e = engine([wf]));
    await e.start();
    const commits = spy(e);
    const handle = await wf.start({});
    const deadline = Date.now() + 5000;
    while (!commits.some((c) => c.includes("complete")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    // The outcome rode the checkpoint's transaction and was refused with it: nothing was written.
    expect(commits.filter((c) => c.includes("saveSteps"))).toEqual([["saveSteps", "complete"]]);
    const run = await e.store.getRun(handle.id);
    expect(run?.status).toBe("running");
    expect(run?.finishedAt ?? null).toBeNull();
    expect(await e.store.getSteps(handle.id)).toEqual([]);
  });

  it("a park after a step is written after the step's checkpoint, also when that one is retried", async () => {
    const wf = defineWorkflow("ahead-park", {
      handler: async (_p, ctx) => {
        const v = await ctx.run("first", () => 7);
        await ctx.sleep("long", "1h");
        return v;
      },
    });
    const e = engine([wf]);
    await e.start();
    const commits = spy(e, failFirstCheckpoint());
    const handle = await wf.start({});
    const deadline = Date.now() + 10_000;
    while ((await e.store.getRun(handle.id))?.status !== "waiting" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const steps = await e.store.getSteps(handle.id);
    expect(steps.map((s) => [s.key, s.status])).toEqual([
      ["first", "done"],
      ["long", "pending"],
    ]);
    // The checkpoint's batch failed once; the park waited for its retry.
    const save = commits.findIndex((c) => c.includes("saveSteps") && !c.includes("(failed)"));
    const park = commits.findIndex((c) => c.includes("suspend"));
    expect(commits.find((c) => c.includes("saveSteps"))).toContain("(failed)");
    expect(save).toBeGreaterThanOrEqual(0);
    expect(park).toBeGreaterThan(save);
  });
});
