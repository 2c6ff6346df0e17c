/**
 * Workflows-as-code semantics beyond the seed's examples: zero-slot suspension,
 * task options enforced at run time, TaskError, determinism, and code racing a suspension.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import type { RunRecord } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { delay } from "../helpers/tmp.js";

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 500 });
});

async function start(files: Record<string, string>, worker: { concurrency?: number } = {}) {
  const root = makeProject(files);
  const engine = createEngine({
    database: join(root, ".sluice", "sluice.db"),
    scheduler: false,
    worker: { pollMs: 50, ...worker },
  });
  engines.push(engine);
  await engine.start();
  const report = await new Project(root, engine).loadAll();
  expect(report.errors).toEqual([]);
  return engine;
}

const HEADER = `import { workflow, task, step, sleep, parallel, TaskError } from "windmill-client";\n`;

describe("workflows as code", () => {
  it("a worker with one slot finishes a workflow that fans out to 100 tasks", async () => {
    const engine = await start(
      {
        "f/fan.ts": `${HEADER}
          async function square(n: number) { return n * n; }
          export const main = workflow(async (n: number) => {
            const xs = await Promise.all(Array.from({ length: n }, (_, i) => task(square)(i)));
            return xs.reduce((a, b) => a + b, 0);
          });`,
      },
      { concurrency: 1 },
    );
    const run = await engine.enqueueRun("f/fan", { n: 100 });
    expect(await run.result({ timeoutMs: 30_000 })).toBe(328_350);
    const parent = (await engine.getRun(run.id))!;
    expect(parent.outstanding).toBe(0);
    expect(await engine.store.countRuns({ parentId: run.id, status: "succeeded" })).toBe(100);
  });

  it("the parent holds no slot while its children run", async () => {
    const engine = await start({
      "f/hold.ts": `${HEADER}
        async function slow() { await new Promise((r) => setTimeout(r, 300)); return 1; }
        export const main = workflow(async () => task(slow)());`,
    });
    const run = await engine.enqueueRun("f/hold", {});
    await delay(150);
    expect((await engine.getRun(run.id))!.status).toBe("waiting");
    expect(engine.worker!.busy).toBe(1); // the child only
    expect(await run.result({ timeoutMs: 5000 })).toBe(1);
  });

  it("timeout: a task running past its timeout is stopped and fails with TASK_TIMEOUT", async () => {
    const engine = await start({
      "f/timeout.ts": `${HEADER}
        async function forever() { await new Promise((r) => setTimeout(r, 60_000)); return "never"; }
        export const main = workflow(async () => {
          try { return await task(forever, { timeout: 0.3 })(); }
          catch (e) { return { caught: e instanceof TaskError, code: e.result.code, key: e.step_key }; }
        });`,
    });
    const started = Date.now();
    const run = await engine.enqueueRun("f/timeout", {});
    expect(await run.result({ timeoutMs: 5000 })).toEqual({ caught: true, code: "TASK_TIMEOUT", key: "forever" });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("concurrency_limit: never more than the limit running at once, across the fan-out", async () => {
    const engine = await start({
      "f/limited.ts": `${HEADER}
        let running = 0;
        async function work(i: number) {
          running++;
          const seen = running;
          await new Promise((r) => setTimeout(r, 30));
          running--;
          return seen;
        }
        export const main = workflow(async () => {
          const seen = await parallel(Array.from({ length: 12 }, (_, i) => i), (i) => task(work, { concurrency_limit: 2, concurrency_key: "api" })(i));
          return Math.max(...seen);
        });`,
    });
    const run = await engine.enqueueRun("f/limited", {});
    expect(await run.result({ timeoutMs: 15_000 })).toBe(2);
  });

  it("priority: higher-priority tasks are claimed first", async () => {
    const engine = await start(
      {
        "f/prio.ts": `${HEADER}
          const order: string[] = [];
          async function mark(name: string) { order.push(name); return order.length; }
          async function report() { return order; }
          export const main = workflow(async () => {
            await Promise.all([
              task(mark, { priority: 0 })("low"),
              task(mark, { priority: 5 })("mid"),
              task(mark, { priority: 10 })("high"),
            ]);
            return task(report)();
          });`,
      },
      { concurrency: 1 },
    );
    const run = await engine.enqueueRun("f/prio", {});
    expect(await run.result({ timeoutMs: 5000 })).toEqual(["high", "mid", "low"]);
  });

  it("TaskError carries message, step_key, child_job_id and result, identically on every replay", async () => {
    const engine = await start({
      "f/errors.ts": `${HEADER}
        async function boom(x: string) { throw new Error("bad " + x); }
        async function ok() { return 1; }
        export const main = workflow(async () => {
          const seen: unknown[] = [];
          for (const x of ["a", "b"]) {
            try { await task(boom)(x); }
            catch (e) { seen.push({ message: e.message, key: e.step_key, child: e.child_job_id, name: e.result.name }); }
            await task(ok)();
          }
          return seen;
        });`,
    });
    const run = await engine.enqueueRun("f/errors", {});
    const seen = (await run.result({ timeoutMs: 5000 })) as Array<{
      message: string;
      key: string;
      child: string;
      name: string;
    }>;
    const kids = await engine.store.listRuns({ parentId: run.id, limit: 10 });
    const failed = kids.filter((k) => k.status === "failed").reverse();
    expect(seen).toEqual([
      { message: "bad a", key: "boom", child: failed[0]!.id, name: "Error" },
      { message: "bad b", key: "boom#2", child: failed[1]!.id, name: "Error" },
    ]);
  });

  it("an un-awaited failed task is logged instead of crashing or vanishing", async () => {
    const engine = await start({
      "f/unawaited.ts": `${HEADER}
        async function boom() { throw new Error("nobody listens"); }
        async function fine() { return "fine"; }
        export const main = workflow(async () => {
          const ignored = task(boom)();
          const kept = task(fine)();
          return await kept;
        });`,
    });
    const run = await engine.enqueueRun("f/unawaited", {});
    expect(await run.result({ timeoutMs: 5000 })).toBe("fine");
    await engine.committer.drain();
    const logs = await engine.store.getLogs(run.id);
    expect(logs.map((l) => [l.level, l.message])).toContainEqual([
      "warn",
      'task "boom" failed and its result was never awaited: nobody listens',
    ]);
  });

  it("a replay that calls something else at a recorded key fails with NonDeterminismError naming key and position", async () => {
    const engine = await start({
      "f/flaky-code.ts": `${HEADER}
        let executions = 0;
        async function double(n: number) { return n * 2; }
        export const main = workflow(async () => {
          executions++;
          await step("first", () => 1);
          if (executions === 1) return task(double)(2);
          return step("double", () => 4);
        });`,
    });
    const run = await engine.enqueueRun("f/flaky-code", {});
    await expect(run.result({ timeoutMs: 5000 })).rejects.toMatchObject({ code: "RUN_FAILED" });
    const failed = (await engine.getRun(run.id)) as RunRecord;
    expect(failed.error).toMatchObject({ code: "NON_DETERMINISM" });
    expect(failed.error!.message).toMatch(
      /checkpoint "double" \(call #2\): the history recorded task "double" but the code now calls step/,
    );
  });

  it("code racing past a suspension gets an error at its next SDK call; the run still finishes once", async () => {
    const engine = await start({
      "f/race.ts": `${HEADER}
        import { appendFileSync } from "node:fs";
        async function slow() { await new Promise((r) => setTimeout(r, 200)); return "slow"; }
        export const main = workflow(async (file: string) => {
          const winner = await Promise.race([task(slow)(), new Promise((r) => setTimeout(() => r("timer"), 20))]);
          try {
            await step("after", () => { appendFileSync(file, "after " + winner + "\\n"); return winner; });
          } catch (e) {
            appendFileSync(file, "sdk call refused: " + e.code + "\\n");
            throw e;
          }
          return winner;
        });`,
    });
    const file = join(
      engine.store.kind === "sqlite" ? (await import("node:os")).tmpdir() : "/tmp",
      `race-${process.pid}-${Date.now()}.log`,
    );
    const run = await engine.enqueueRun("f/race", { file });
    expect(await run.result({ timeoutMs: 5000 })).toBe("slow");
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(file, "utf8").trim().split("\n")).toEqual(["sdk call refused: SUSPENDED", "after slow"]);
  });
});
