/**
 * `taskScript(path)` / `taskFlow(path)` of a path no process registers or published: the call fails
 * at once with a `TaskError` naming the path (code UNKNOWN_WORKFLOW, as an enqueue of it is refused),
 * and no child run is left pending. A path published by another process, or loaded while the call
 * waits, is not unknown; a failure is recorded, so a later deploy of the path does not change it.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";

const HEADER = `import { workflow, taskScript, taskFlow, sleep, TaskError } from "windmill-client";\n`;

const FILES = {
  "f/qa/badref.ts": `${HEADER}export const main = workflow(async () => await taskScript("f/nope/missing")({}));`,
  "f/qa/add.ts": `${HEADER}export const main = workflow(async (x: number, y: number) => x + y);`,
  "f/qa/catch.ts": `${HEADER}
    export const main = workflow(async () => {
      const out: unknown[] = [];
      for (const t of [taskScript("./missing.ts"), taskFlow("f/nope/flow"), taskScript("f/qa/add")]) {
        try {
          out.push(await t({ x: 1, y: 2 }));
        } catch (e) {
          const err = e as TaskError;
          out.push({ taskError: e instanceof TaskError, key: err.step_key, child: err.child_job_id, code: (err.result as { code: string }).code, message: err.message });
        }
      }
      return out;
    });`,
};

describe("taskScript/taskFlow of an unknown path, against sluice dev", { timeout: 60_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => ({ root, dev } = await startDev(FILES)));
  afterAll(() => stopDev(dev));

  it("uncaught, the run fails at once with the TaskError naming the path; no child run is created", async () => {
    const p = spawnSluice(["enqueue", "f/qa/badref", "--wait", "--timeout", "20s", "--id", "badref-1"], root);
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toMatch(
      /run badref-1 failed: taskScript\("f\/nope\/missing"\): unknown workflow "f\/nope\/missing"/,
    );
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      expect(await store.listRuns({ parentId: "badref-1", limit: 10 })).toEqual([]);
      expect(await store.countRuns({ status: "pending" })).toBe(0);
      const [step] = await store.getSteps("badref-1");
      expect(step).toMatchObject({ kind: "task", status: "error", childId: null, error: { code: "UNKNOWN_WORKFLOW" } });
      expect((await store.getRun("badref-1"))!.error).toMatchObject({ code: "TASK_FAILED" });
    } finally {
      await store.close();
    }
    await dev.waitFor(/warn: task "f\/nope\/missing" failed: taskScript\("f\/nope\/missing"\)/);
  });

  it("the workflow can catch it (taskScript('./x.ts') and taskFlow alike) and go on", async () => {
    const p = spawnSluice(["enqueue", "f/qa/catch", "--wait", "--timeout", "20s"], root);
    expect(await p.exited).toBe(0);
    const out = JSON.parse(p.stdout());
    expect(out).toEqual([
      {
        taskError: true,
        key: "./missing.ts",
        child: null,
        code: "UNKNOWN_WORKFLOW",
        message: expect.stringMatching(
          /^taskScript\("\.\/missing\.ts"\) \(the path names "f\/qa\/catch__mod\/missing"\): unknown workflow "f\/qa\/catch__mod\/missing"; known workflows: f\/qa\/add, /,
        ),
      },
      {
        taskError: true,
        key: "f/nope/flow",
        child: null,
        code: "UNKNOWN_WORKFLOW",
        message: expect.stringMatching(/^taskFlow\("f\/nope\/flow"\): unknown workflow "f\/nope\/flow"/),
      },
      3,
    ]);
  });
});

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 500 });
});

function engineOn(root: string, worker = true): Engine {
  const engine = createEngine({
    database: join(root, ".sluice", "sluice.db"),
    scheduler: false,
    worker: worker ? { pollMs: 50 } : false,
  });
  engines.push(engine);
  return engine;
}

describe("which paths are known", () => {
  const files = {
    "f/parent.ts": `${HEADER}
      export const main = workflow(async () => {
        let first: unknown;
        try { first = await taskScript("f/late")({ n: 1 }); }
        catch (e) { first = (e as TaskError).result; }
        await sleep(1);
        return { first, second: await taskScript("f/late")({ n: 2 }) };
      });`,
    "f/late.ts": `export async function main(n: number) { return n * 10; }`,
  };

  it("a path published by another process (another release, a worker elsewhere) is known", async () => {
    const root = makeProject(files);
    const other = engineOn(root);
    await other.start();
    await new Project(root, other).loadFile("f/late.ts");
    const engine = engineOn(root);
    await engine.start();
    await new Project(root, engine).loadFile("f/parent.ts");
    expect(engine.registry.get("f/late")).toBeUndefined();
    const run = await engine.enqueueRun("f/parent", {});
    expect(await run.result({ timeoutMs: 15_000 })).toEqual({ first: 10, second: 20 });
  });

  it("a path this process is still loading is waited for; a failure is recorded and replays after a deploy", async () => {
    const root = makeProject(files);
    const engine = engineOn(root);
    await engine.start();
    const project = new Project(root, engine);
    await project.loadFile("f/parent.ts");
    // A load in progress (as at the start of `sluice dev`, before f/late.ts was reached).
    let release!: () => void;
    const loading = engine.registry.loading(new Promise<void>((r) => (release = r)));
    const waited = await engine.enqueueRun("f/parent", {});
    await delay(300);
    expect((await engine.getRun(waited.id))!.status).toBe("running");
    await project.loadFile("f/late.ts");
    release();
    await loading;
    expect(await waited.result({ timeoutMs: 15_000 })).toEqual({ first: 10, second: 20 });

    // Unknown when the call is made: recorded as failed; the path deployed before the run resumes
    // from its sleep changes nothing for that call, and the next call finds it.
    const root2 = makeProject(files);
    const engine2 = engineOn(root2);
    await engine2.start();
    const project2 = new Project(root2, engine2);
    await project2.loadFile("f/parent.ts");
    const run = await engine2.enqueueRun("f/parent", {});
    await eventually(async () => (await engine2.store.getSteps(run.id)).some((s) => s.status === "error"));
    await project2.loadFile("f/late.ts");
    expect(await run.result({ timeoutMs: 15_000 })).toEqual({
      first: expect.objectContaining({ code: "UNKNOWN_WORKFLOW" }),
      second: 20,
    });
    expect(await engine2.store.listRuns({ parentId: run.id, limit: 10 })).toHaveLength(1);
  });
});
