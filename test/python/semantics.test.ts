/**
 * Semantics of Python workflows that the seed examples do not show: one suspend for a
 * gather of 500 tasks, TaskError stable across replays, non-determinism detected with key
 * and position, a Python workflow calling a Python workflow, code errors final.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { isTerminal, type RunRecord } from "../../src/store/types.js";
import { PYTHON_ON_PROTOCOL, type PythonProtocolServer, servePythonOverProtocol } from "../helpers/python-protocol.js";
import { makeProject } from "../helpers/project.js";
import { delay } from "../helpers/tmp.js";

const FILES = {
  "f/sem/fanout.py": `import asyncio
from wmill import task, workflow

@task
async def inc(i: int):
    return i + 1

@workflow
async def main(n: int):
    return sum(await asyncio.gather(*(inc(i) for i in range(n))))
`,
  "f/sem/stable_error.py": `from wmill import task, step, workflow
from wmill.client import TaskError

@task
async def boom():
    raise RuntimeError("kaput")

@task
async def later():
    return "later"

@workflow
async def main():
    try:
        await boom()
    except TaskError as e:
        now = [e.message, e.step_key, e.child_job_id, e.result["name"]]
    first = await step("seen", lambda: now)
    await later()
    return {"first": first, "now": now}
`,
  "f/sem/step_raises.py": `from wmill import step, task, workflow

class Refused(Exception):
    def __init__(self, reason):
        super().__init__(f"refused: {reason}")
        self.reason = reason

def check():
    raise Refused("over limit")

@task
async def later():
    return "later"

@workflow
async def main():
    try:
        await step("check", check)
        caught = None
    except Refused as e:
        caught = [type(e).__name__, str(e), e.reason]
    after = await later()
    return {"caught": caught, "after": after}
`,
  "f/sem/flip.py": `import os
from wmill import task_script, task_flow, workflow

@workflow
async def main(flag: str):
    if os.path.exists(flag):
        return await task_flow("f/sem/lib")(flag=flag)
    return await task_script("f/sem/lib")(flag=flag)
`,
  "f/sem/lib.py": `def main(flag: str):
    open(flag, "w").write("flipped")
    return "ran"
`,
  "f/sem/bad_values.py": `from wmill import task, workflow

@task
async def nan():
    return float("nan")

@task
async def echo(x):
    return x

@workflow
async def main():
    errors = []
    try:
        await nan()
    except Exception as e:
        errors.append(str(e))
    try:
        await echo(object())
    except TypeError as e:
        errors.append(str(e))
    return errors
`,
  "f/sem/crash.py": `from wmill import workflow

@workflow
async def main():
    raise KeyError("missing")
`,
};

let engine: Engine;
let project: Project;
let protocol: PythonProtocolServer | null = null;
let root: string;
beforeAll(async () => {
  root = makeProject(FILES, "sluice-py-sem-");
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  engine = createEngine({ store, scheduler: true, worker: { pollMs: 20, concurrency: 1 } });
  await engine.start();
  project = new Project(root, engine);
  if (PYTHON_ON_PROTOCOL) project.python.useProtocol();
  const report = await project.loadAll();
  expect(report.errors).toEqual([]);
  // On the protocol path the Python worker has the one slot.
  if (PYTHON_ON_PROTOCOL) protocol = await servePythonOverProtocol(engine, project, { concurrency: 1 });
}, 30_000);
afterAll(async () => {
  await protocol?.close();
  await engine?.stop({ drainMs: 500 });
  project?.python.close();
  await engine?.store.close();
});

async function runToEnd(workflow: string, payload: unknown): Promise<RunRecord> {
  const handle = await engine.enqueueRun(workflow, payload);
  for (let i = 0; ; i++) {
    const run = (await engine.store.getRun(handle.id))!;
    if (isTerminal(run.status)) return run;
    if (i > 1500) throw new Error(`${workflow} did not finish: ${run.status}`);
    await delay(20);
  }
}

describe("Python workflow semantics", () => {
  it("a step body's exception reaches the workflow as itself (class, message, attributes), on every replay", async () => {
    const run = await runToEnd("f/sem/step_raises", {});
    expect(run.status).toBe("succeeded");
    // The task parks the run: the result comes from a replay, which ran the (uncheckpointed) step again.
    expect(JSON.parse(run.result!)).toEqual({
      caught: ["Refused", "refused: over limit", "over limit"],
      after: "later",
    });
    expect((await engine.store.getSteps(run.id)).map((s) => s.key)).toEqual(["later"]);
  });

  it("a gather of 500 tasks is written by one suspend, and a worker with one slot finishes it (the parent holds none while it waits)", async () => {
    const run = await runToEnd("f/sem/fanout", { n: 500 });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toBe((500 * 501) / 2);
    const kids = await engine.store.listRuns({ parentId: run.id, limit: 1000 });
    expect(kids).toHaveLength(500);
    expect(new Set(kids.map((k) => k.createdAt)).size).toBe(1);
    const keys = new Set(kids.map((k) => k.parentKey));
    expect(keys.has("inc") && keys.has("inc#500")).toBe(true);
  }, 60_000);

  it("TaskError has the same message, step_key, child_job_id and result on every replay", async () => {
    const run = await runToEnd("f/sem/stable_error", {});
    expect(run.status).toBe("succeeded");
    const out = JSON.parse(run.result!);
    const [boom] = (await engine.store.listRuns({ parentId: run.id, limit: 10 })).filter((k) => k.task === "boom");
    expect(out.first).toEqual(["kaput", "boom", boom!.id, "RuntimeError"]);
    expect(out.now).toEqual(out.first);
  });

  it("a replay that calls something else at a recorded key fails with NON_DETERMINISM naming key and position", async () => {
    const flag = join(root, "flag.txt");
    const run = await runToEnd("f/sem/flip", { flag });
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "NON_DETERMINISM" });
    expect(run.error!.message).toContain('checkpoint "f/sem/lib" (call #1)');
    expect(run.error!.message).toContain(
      'recorded task "script:f/sem/lib" but the code now calls task "flow:f/sem/lib"',
    );
  });

  it("values that are not JSON fail the call or the task with a clear message (no hang)", async () => {
    const run = await runToEnd("f/sem/bad_values", {});
    expect(run.status).toBe("succeeded");
    const [nan, arg] = JSON.parse(run.result!) as string[];
    expect(nan).toMatch(/result of task 'nan' \(run \S+\) is not JSON-serialisable \(Out of range float values/);
    expect(arg).toMatch(
      /the arguments of this task call are not JSON-serialisable \(Object of type object is not JSON serializable\)/,
    );
  });

  it("an exception in the workflow fails the run at once with the Python class and traceback in its log", async () => {
    const run = await runToEnd("f/sem/crash", {});
    expect(run.status).toBe("failed");
    expect(run.attempt).toBe(1);
    expect(run.error).toMatchObject({ name: "KeyError", message: "'missing'" });
    await engine.committer.drain();
    const logs = (await engine.store.getLogs(run.id)).map((l) => l.message).join("\n");
    expect(logs).toContain("Traceback (most recent call last)");
    expect(logs).toContain('raise KeyError("missing")');
  });
});
