/**
 * Seed 000's Python files on the worker protocol (SLUICE_PYTHON_HOST=protocol), whatever the
 * environment of this test run: the engine's API on a loopback port and the supervised
 * `python3 -m wmill._wac_worker` claiming from it, as `sluice dev` runs them. The other
 * test/python files run on this path too when SLUICE_PYTHON_HOST=protocol is set; here are the
 * checks that only this path has: nothing runs on the built-in worker, one park for a gather,
 * the code route, task timeouts that stop the function, and the supervision of the process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp } from "../../src/http/app.js";
import { Project } from "../../src/loader/project.js";
import { PythonProtocolWorker } from "../../src/loader/python/protocol-worker.js";
import { pythonHostMode } from "../../src/loader/python/project.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { isTerminal, type RunRecord } from "../../src/store/types.js";
import { postJson } from "../helpers/post-json.js";
import { type PythonProtocolServer, servePythonOverProtocol } from "../helpers/python-protocol.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";

const FILES = {
  "f/pp/fanout.py": `import asyncio
from wmill import task, workflow

@task
async def inc(i: int):
    return i + 1

@workflow
async def main(n: int):
    return sum(await asyncio.gather(*(inc(i) for i in range(n))))
`,
  "f/pp/slow.py": `import asyncio, os
from wmill import task, workflow
from wmill.client import TaskError

@task(timeout=1)
async def slow(marker: str):
    await asyncio.sleep(3)
    open(marker, "w").write("ran past its timeout")
    return "late"

@workflow
async def main(marker: str):
    try:
        return await slow(marker)
    except TaskError as e:
        return {"message": e.message, "code": (e.result or {}).get("code")}
`,
  "f/pp/busy.py": `import time
from wmill import task, workflow
from wmill.client import TaskError

@task(timeout=1)
def busy(marker: str):
    for _ in range(60):
        time.sleep(0.05)
    open(marker, "w").write("ran past its timeout")
    return "late"

@workflow
async def main(marker: str):
    try:
        return await busy(marker)
    except TaskError as e:
        return {"message": e.message, "code": (e.result or {}).get("code")}
`,
  "f/pp/hang.py": `import asyncio, os
from wmill import task, workflow

@task
async def hang(marker: str):
    if os.path.exists(marker):
        return "second attempt"
    open(marker, "w").write("started")
    await asyncio.sleep(300)
    return "first attempt"

@workflow
async def main(marker: str):
    return await hang(marker)
`,
  "f/pp/steps.py": `from wmill import step, workflow

@workflow
async def main(x: int):
    a = await step("a", lambda: x + 1)
    b = await step("b", lambda: a * 2)
    return [a, b]
`,
};

let engine: Engine;
let project: Project;
let root: string;
let protocol: PythonProtocolServer;

beforeAll(async () => {
  root = makeProject(FILES, "sluice-py-proto-");
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  engine = createEngine({ store, scheduler: true, worker: { pollMs: 20 } });
  await engine.start();
  project = new Project(root, engine);
  project.python.useProtocol();
  const report = await project.loadAll();
  expect(report.errors).toEqual([]);
  protocol = await servePythonOverProtocol(engine, project);
}, 30_000);
afterAll(async () => {
  await protocol?.close();
  await engine?.stop({ drainMs: 500 });
  project?.python.close();
  await engine?.store.close();
});

async function runToEnd(workflow: string, payload: unknown, ms = 30_000): Promise<RunRecord> {
  const handle = await engine.enqueueRun(workflow, payload);
  const until = Date.now() + ms;
  for (;;) {
    const run = (await engine.store.getRun(handle.id))!;
    if (isTerminal(run.status)) return run;
    if (Date.now() > until) throw new Error(`${workflow} did not finish: ${run.status}`);
    await delay(20);
  }
}

describe("Python workflows on the worker protocol", () => {
  it("SLUICE_PYTHON_HOST chooses the host; anything else is refused with what to write", () => {
    expect(pythonHostMode({})).toBe("protocol");
    expect(pythonHostMode({ SLUICE_PYTHON_HOST: "bridge" })).toBe("bridge");
    expect(pythonHostMode({ SLUICE_PYTHON_HOST: "protocol" })).toBe("protocol");
    expect(() => pythonHostMode({ SLUICE_PYTHON_HOST: "grpc" })).toThrow(/use "protocol".*or "bridge"/);
  });

  it("the files are external workflows: the built-in worker never runs them, the Python worker does", async () => {
    expect(engine.registry.get("f/pp/fanout")).toBeUndefined();
    // Published with the type of its hint (`n: int`), so an enqueue in any process checks it.
    expect((await engine.store.getWorkflow("f/pp/fanout"))?.params).toEqual({
      names: ["n"],
      required: ["n"],
      types: { n: { hint: "int", json: ["integer"] } },
    });
    const run = await runToEnd("f/pp/steps", { x: 4 });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toEqual([5, 10]);
    expect((await engine.store.getSteps(run.id)).map((s) => [s.key, s.kind, s.status])).toEqual([
      ["a", "step", "done"],
      ["b", "step", "done"],
    ]);
    expect(run.version).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a gather of 300 tasks is one park: every child is created by the same commit", async () => {
    const run = await runToEnd("f/pp/fanout", { n: 300 });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toBe((300 * 301) / 2);
    const kids = await engine.store.listRuns({ parentId: run.id, limit: 1000 });
    expect(kids).toHaveLength(300);
    expect(new Set(kids.map((k) => k.createdAt)).size).toBe(1);
    expect(kids.every((k) => k.task === "inc" && k.version === run.version)).toBe(true);
  }, 60_000);

  it("a task past its timeout fails with TASK_TIMEOUT, and its async function is stopped", async () => {
    const marker = join(root, "late.txt");
    const started = Date.now();
    const run = await runToEnd("f/pp/slow", { marker });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toEqual({
      message: expect.stringMatching(/ran longer than its timeout of 1 s/),
      code: "TASK_TIMEOUT",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    await delay(6_000 - (Date.now() - started));
    expect(existsSync(marker)).toBe(false);
  }, 30_000);

  it("a sync task past its timeout fails with TASK_TIMEOUT, and its thread is stopped", async () => {
    const marker = join(root, "late-sync.txt");
    const started = Date.now();
    const run = await runToEnd("f/pp/busy", { marker });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toMatchObject({ code: "TASK_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(3_000);
    await delay(6_000 - (Date.now() - started));
    expect(existsSync(marker)).toBe(false);
  }, 30_000);

  it("POST /api/worker/code answers a stored version's code, and 404 for an unknown one", async () => {
    const app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
    const version = (await engine.store.getWorkflow("f/pp/steps"))!.version!;
    const ok = await postJson(app, "/api/worker/code", { version });
    expect(ok.status).toBe(200);
    expect(String((ok.body as { code: string }).code)).toMatch(/^#sluice-python \{.*"file":"f\/pp\/steps.py"/);
    const missing = await postJson(app, "/api/worker/code", { version: "0".repeat(64) });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: "CODE_VERSION_NOT_FOUND" } });
  });

  it("a Python worker that dies is started again, and runs go on", async () => {
    const first = protocol.pid();
    expect(first).toBeGreaterThan(0);
    process.kill(first!, "SIGKILL");
    await eventually(() => protocol.pid() !== null && protocol.pid() !== first, 15_000);
    const run = await runToEnd("f/pp/steps", { x: 1 });
    expect(JSON.parse(run.result!)).toEqual([2, 4]);
  }, 30_000);
});

describe("a Python worker that dies", () => {
  it("its claims are released at once: the task runs again well before its 30 s lease would expire", async () => {
    const marker = join(root, "hang-started.txt");
    const handle = await engine.enqueueRun("f/pp/hang", { marker });
    await eventually(() => existsSync(marker), 20_000);
    const pid = protocol.pid()!;
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    await eventually(async () => isTerminal((await engine.store.getRun(handle.id))!.status), 20_000);
    // The lease is 30 s: without the release the retry could not start before it expired.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    const run = (await engine.store.getRun(handle.id))!;
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toBe("second attempt");
    const [child] = await engine.store.listRuns({ parentId: handle.id });
    expect(child).toMatchObject({ status: "succeeded", attempt: 2 });
    expect(protocol.output().join("\n")).toMatch(
      /the exited Python worker's [12] claim\(s\) were released: [12] run\(s\) get another attempt now/,
    );
    expect(engine.externalLeases.size).toBe(0);
  }, 45_000);
});

describe("the Python worker's supervisor", () => {
  it("a missing interpreter is said once and not retried", async () => {
    const lines: string[] = [];
    const w = new PythonProtocolWorker({
      python: "/nonexistent/python3",
      cwd: root,
      url: "http://127.0.0.1:9",
      env: process.env,
      write: (l) => lines.push(l),
    });
    w.setWorkflows(["f/x"]);
    await delay(1_500);
    w.setWorkflows(["f/x", "f/y"]);
    await delay(200);
    expect(lines.filter((l) => /could not be started.*install python3/.test(l))).toHaveLength(1);
    expect(w.starts).toBe(1);
    await w.stop();
  });

  it("stop() ends the process (SIGTERM; it drains and exits)", async () => {
    const w = new PythonProtocolWorker({
      python: process.env.SLUICE_PYTHON ?? "python3",
      cwd: root,
      url: "http://127.0.0.1:9",
      env: process.env,
      write: () => {},
    });
    w.setWorkflows(["f/x"]);
    const pid = w.pid!;
    expect(pid).toBeGreaterThan(0);
    await w.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
