/**
 * `sluice/testing` as a user imports it (its entry point, `src/testing.ts`): a real engine on a fresh
 * SQLite file whose test clock skips sleeps and timeouts, runs awaited to completion, parked
 * runs reported with what they wait on, and a project folder loaded as `sluice dev` loads it.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow, TerminalError } from "../../src/index.js";
import { createTestEngine, TestRunBlockedError, type TestEngine } from "../../src/testing.js";
import { makeProject } from "../helpers/project.js";

const DAY = 24 * 60 * 60 * 1000;

const remind = defineWorkflow<{ user: string }, string>("remind", {
  handler: async (p, ctx) => {
    await ctx.sleep("a-day", DAY);
    await ctx.sleep("a-week", "7d");
    return ctx.run("send", () => `reminded ${p.user}`);
  },
});
const approve = defineWorkflow<{ order: string }, string>("approve", {
  handler: async (p, ctx) => {
    const answer = await ctx.waitFor<{ ok: boolean }>(`approved:${p.order}`);
    const late = await ctx.waitFor("never", { timeout: "3d" });
    return `${p.order}: ${answer?.ok ? "approved" : "refused"}, late=${late === null ? "timed out" : "came"}`;
  },
});
let flakyCalls = 0;
const flaky = defineWorkflow<unknown, string>("flaky", {
  retries: 2,
  backoff: { base: 600_000, max: 3_600_000 },
  handler: async () => {
    flakyCalls += 1;
    if (flakyCalls === 1) throw new Error("first attempt fails");
    return `attempt ${flakyCalls}`;
  },
});
const broken = defineWorkflow<unknown, never>("broken", {
  handler: async () => {
    throw new TerminalError("card declined");
  },
});

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("sluice/testing", () => {
  it("runs a workflow to completion, skipping its durable sleeps", async () => {
    t = await createTestEngine({ workflows: [remind, approve, broken] });
    const started = Date.now();
    const run = await t.runToCompletion(remind, { user: "ada" });
    expect(run.status).toBe("succeeded");
    expect(run.result).toBe("reminded ada");
    // The clock moved to each sleep's wake time (set a few ms after the real time it started).
    expect(t.clock.skipped).toBeGreaterThan(8 * DAY - 60_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("skips time for a run due later: a future runAt, and a retry's backoff", async () => {
    t = await createTestEngine({ workflows: [remind, flaky] });
    const started = Date.now();
    const later = await t.runToCompletion(remind, { user: "bo" }, { runAt: new Date(Date.now() + 2 * DAY) });
    expect(later.result).toBe("reminded bo");
    expect(t.clock.skipped).toBeGreaterThan(10 * DAY - 60_000);
    const retried = await t.runToCompletion(flaky, {});
    expect(retried.result).toBe("attempt 2");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("returns a failed run with its error instead of throwing", async () => {
    t = await createTestEngine({ workflows: [broken] });
    const run = await t.runToCompletion("broken", {});
    expect(run.status).toBe("failed");
    expect(run.error?.message).toMatch(/card declined/);
    expect(run.result).toBeUndefined();
  });

  it("reports a run parked on a signal nobody sends, and lets the test send it", async () => {
    t = await createTestEngine({ workflows: [approve] });
    const blocked = await t.runToCompletion(approve, { order: "o1" }).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(TestRunBlockedError);
    expect((blocked as TestRunBlockedError).code).toBe("TEST_RUN_BLOCKED");
    expect((blocked as Error).message).toMatch(/signal "approved:o1"/);

    const engine = t.engine;
    const run = await t.runToCompletion(
      approve,
      { order: "o2" },
      {
        onWaiting: async (_run, blocks) => {
          for (const b of blocks) if (b.event === "approved:o2") await engine.signal("approved:o2", { ok: true });
        },
      },
    );
    expect(run.result).toBe("o2: approved, late=timed out");
  });

  it("removes its temporary database on close", async () => {
    t = await createTestEngine({ workflows: [remind] });
    const file = t.store.location.kind === "file" ? t.store.location.path : "";
    expect(existsSync(file)).toBe(true);
    await t.close();
    t = undefined;
    expect(existsSync(dirname(file))).toBe(false);
  });

  it("loads a project folder's Windmill-style workflows", async () => {
    const root = makeProject({
      "workflows/double.ts": `import { workflow, task, sleep } from "sluice/windmill";
async function double(n: number) {
  return n * 2;
}
const twice = task(double);
export const main = workflow(async (n: number) => {
  await sleep(3600);
  return twice(await twice(n));
});
`,
    });
    t = await createTestEngine({ project: root });
    const run = await t.runToCompletion("workflows/double", { n: 5 });
    expect(run.status, JSON.stringify(run.error?.message)).toBe("succeeded");
    expect(run.result).toBe(20);
  });

  it("refuses a folder that is not a Sluice project, importing nothing from it", async () => {
    const root = makeProject({
      "bench/tool.ts": `import { defineWorkflow } from "sluice";\nthrow new Error("imported");\nexport default defineWorkflow("tool", { handler: () => 1 });\n`,
    });
    await expect(createTestEngine({ project: root })).rejects.toMatchObject({
      code: "NOT_A_PROJECT",
      message: expect.stringMatching(/is not a Sluice project/),
    });
  });
});
