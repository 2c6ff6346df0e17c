/**
 * Python code versions: a run finishes on the code it started with, across a reload and
 * across a restart (the old version read back from the store); new runs take the new code.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { isTerminal } from "../../src/store/types.js";
import { PYTHON_ON_PROTOCOL, servePythonOverProtocol } from "../helpers/python-protocol.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const version = (tag: string) => `from wmill import task, sleep, workflow

@task
async def label():
    return "${tag}"

@workflow
async def main():
    await sleep(1)
    return await label()
`;

async function open(root: string) {
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  const engine = createEngine({ store, scheduler: true, worker: { pollMs: 20 } });
  await engine.start();
  const project = new Project(root, engine);
  if (PYTHON_ON_PROTOCOL) project.python.useProtocol();
  expect((await project.loadAll()).errors).toEqual([]);
  const protocol = PYTHON_ON_PROTOCOL ? await servePythonOverProtocol(engine, project) : null;
  return {
    engine,
    project,
    async close() {
      await protocol?.close();
      await engine.stop({ drainMs: 500 });
      project.python.close();
      await store.close();
    },
  };
}

const finished = async (engine: Awaited<ReturnType<typeof open>>["engine"], id: string) =>
  eventually(async () => {
    const run = (await engine.store.getRun(id))!;
    return isTerminal(run.status) ? run : null;
  }, 20_000);

describe("Python code versions", () => {
  it("a parked run finishes on its version after a reload; a new run takes the new code", async () => {
    const root = makeProject({ "f/v/wf.py": version("v1") }, "sluice-py-ver-");
    const a = await open(root);
    try {
      const first = await a.engine.enqueueRun("f/v/wf", {});
      await eventually(async () => (await a.engine.store.getRun(first.id))?.status === "waiting", 10_000);
      writeFileSync(join(root, "f/v/wf.py"), version("v2"));
      expect((await a.project.loadPython()).errors).toEqual([]);
      const second = await a.engine.enqueueRun("f/v/wf", {});
      expect(JSON.parse((await finished(a.engine, first.id)).result!)).toBe("v1");
      expect(JSON.parse((await finished(a.engine, second.id)).result!)).toBe("v2");
    } finally {
      await a.close();
    }
  }, 30_000);

  it("after a restart, a run pinned to an old version loads it from the store", async () => {
    const root = makeProject({ "f/v/wf.py": version("old") }, "sluice-py-restart-");
    const a = await open(root);
    const id = (await a.engine.enqueueRun("f/v/wf", {})).id;
    await eventually(async () => (await a.engine.store.getRun(id))?.status === "waiting", 10_000);
    await a.close();
    writeFileSync(join(root, "f/v/wf.py"), version("new"));
    const b = await open(root);
    try {
      const run = await finished(b.engine, id);
      expect(run.status).toBe("succeeded");
      expect(JSON.parse(run.result!)).toBe("old");
      expect(JSON.parse((await finished(b.engine, (await b.engine.enqueueRun("f/v/wf", {})).id)).result!)).toBe("new");
    } finally {
      await b.close();
    }
  }, 30_000);

  it("__mod/ modules are pinned with the workflow: a run keeps importing the module code it started with", async () => {
    const flow = `import extract
from helpers.fmt import tag
from wmill import sleep, workflow

def late():
    import extract as again  # imported when called, after the module changed on disk
    return again.label()

@workflow
async def main():
    await sleep(1)
    return {"extract": extract.label(), "tag": tag(), "late": late()}
`;
    // The folder layout: its own extract.py, a different module of the same name in the same Python process.
    const other = `import extract
from wmill import workflow

@workflow
async def main():
    return extract.label()
`;
    const lib = (v: string) => `def label():\n    return "extract ${v}"\n`;
    const fmt = (v: string) => `from . import parts\n\ndef tag():\n    return parts.PREFIX + "${v}"\n`;
    const root = makeProject(
      {
        "f/m/flow.py": flow,
        "f/m/flow__mod/extract.py": lib("v1"),
        "f/m/flow__mod/helpers/fmt.py": fmt("v1"),
        "f/m/flow__mod/helpers/parts.py": 'PREFIX = "tag "\n',
        "f/m/other__mod/script.py": other,
        "f/m/other__mod/extract.py": lib("of other"),
      },
      "sluice-py-mods-",
    );
    const a = await open(root);
    try {
      const first = await a.engine.enqueueRun("f/m/flow", {});
      await eventually(async () => (await a.engine.store.getRun(first.id))?.status === "waiting", 10_000);
      writeFileSync(join(root, "f/m/flow__mod/extract.py"), lib("v2"));
      writeFileSync(join(root, "f/m/flow__mod/helpers/fmt.py"), fmt("v2"));
      expect((await a.project.loadPython()).errors).toEqual([]);
      const second = await a.engine.enqueueRun("f/m/flow", {});
      const otherRun = await a.engine.enqueueRun("f/m/other", {});
      expect(JSON.parse((await finished(a.engine, first.id)).result!)).toEqual({
        extract: "extract v1",
        tag: "tag v1",
        late: "extract v1",
      });
      expect(JSON.parse((await finished(a.engine, second.id)).result!)).toEqual({
        extract: "extract v2",
        tag: "tag v2",
        late: "extract v2",
      });
      expect(JSON.parse((await finished(a.engine, otherRun.id)).result!)).toBe("extract of other");
      // The two versions are two stored bundles (the module change made a new version).
      const [r1, r2] = [await a.engine.store.getRun(first.id), await a.engine.store.getRun(second.id)];
      expect(r1!.version).not.toBe(r2!.version);
    } finally {
      await a.close();
    }
    // A run parked across a restart gets its version, modules included, back from the store.
    const b = await open(root);
    const third = (await b.engine.enqueueRun("f/m/flow", {})).id;
    await eventually(async () => (await b.engine.store.getRun(third))?.status === "waiting", 10_000);
    await b.close();
    writeFileSync(join(root, "f/m/flow__mod/extract.py"), lib("v3"));
    const c = await open(root);
    try {
      expect(JSON.parse((await finished(c.engine, third)).result!)).toMatchObject({
        extract: "extract v2",
        late: "extract v2",
      });
    } finally {
      await c.close();
    }
  }, 40_000);
});
