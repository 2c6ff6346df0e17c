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
  expect((await project.loadAll()).errors).toEqual([]);
  return {
    engine,
    project,
    async close() {
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
});
