/** Workflows whose module is gone are marked removed in the store and refused at enqueue; publishing them again restores them. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 100 });
});
function engineFor(root: string, worker = false) {
  const e = createEngine({ database: join(root, ".sluice", "sluice.db"), worker, scheduler: false });
  engines.push(e);
  return e;
}
const wf = (name: string) =>
  `import { defineWorkflow } from "sluice";\nexport const ${name.replace(/-/g, "_")} = defineWorkflow("${name}", { handler: async () => 1 });\n`;

describe("removed workflows", () => {
  it("a module deleted while nothing watched is marked removed at the next start (forgetDeletedFiles)", async () => {
    const root = makeProject({ "workflows/keep.ts": wf("keep"), "workflows/gone.ts": wf("gone") });
    const first = engineFor(root);
    await first.start();
    await new Project(root, first).loadAll();
    await first.stop();
    rmSync(join(root, "workflows", "gone.ts"));

    const second = engineFor(root);
    await second.start();
    const project = new Project(root, second);
    await project.loadAll();
    expect((await second.store.listWorkflows()).map((w) => w.name)).toEqual(["gone", "keep"]);
    expect(await project.forgetDeletedFiles()).toEqual(["gone"]);
    expect((await second.store.listWorkflows()).map((w) => w.name)).toEqual(["keep"]);
    await expect(second.enqueueRun("gone", {})).rejects.toMatchObject({
      code: "UNKNOWN_WORKFLOW",
      message: expect.stringMatching(
        /^workflow "gone" was removed \(its file workflows\/gone\.ts was deleted\): .*; known workflows: keep$/,
      ),
    });
    expect(await second.store.countRuns({})).toBe(0);
    expect(await project.forgetDeletedFiles()).toEqual([]);
  });

  it("a name dropped from a reloaded module is removed; restoring the file publishes it again", async () => {
    const root = makeProject({ "workflows/pair.ts": wf("alpha") + wf("beta") });
    const engine = engineFor(root);
    await engine.start();
    const project = new Project(root, engine);
    await project.loadAll();
    writeFiles(root, { "workflows/pair.ts": wf("alpha") });
    await project.loadFile("workflows/pair.ts");
    expect((await engine.store.listWorkflows()).map((w) => w.name)).toEqual(["alpha"]);
    await expect(engine.enqueueRun("beta", {})).rejects.toThrow(/workflow "beta" was removed/);
    writeFiles(root, { "workflows/pair.ts": wf("alpha") + wf("beta") });
    await project.loadFile("workflows/pair.ts");
    expect((await engine.store.listWorkflows()).map((w) => w.name)).toEqual(["alpha", "beta"]);
    expect((await engine.enqueueRun("beta", {})).id).toEqual(expect.any(String));
    expect(await project.removeFile("workflows/pair.ts")).toEqual(["alpha", "beta"]);
    expect(await engine.store.listWorkflows()).toEqual([]);
  });

  it("runs queued or waiting when their module is removed still finish on its last code", async () => {
    const root = makeProject({
      "workflows/gate.ts": `import { defineWorkflow } from "sluice";\nexport const gate = defineWorkflow<{ n: number }>("gate", { handler: async (p, ctx) => ({ n: p.n, got: await ctx.waitFor("open") }) });\n`,
    });
    const engine = engineFor(root, true);
    await engine.start();
    const project = new Project(root, engine);
    await project.loadAll();
    const waiting = await engine.enqueueRun("gate", { n: 1 });
    await eventually(async () => (await engine.getRun(waiting.id))?.status === "waiting");
    const queued = await engine.enqueueRun("gate", { n: 2 }, { runAt: Date.now() + 300 });
    expect(await project.removeFile("workflows/gate.ts")).toEqual(["gate"]);
    await expect(engine.enqueueRun("gate", { n: 3 })).rejects.toThrow(/workflow "gate" was removed/);
    await eventually(async () => (await engine.getRun(queued.id))?.status === "waiting");
    expect(await engine.signal("open", "now")).toBe(2);
    expect(await waiting.result({ timeoutMs: 10_000 })).toEqual({ n: 1, got: "now" });
    expect(await queued.result({ timeoutMs: 10_000 })).toEqual({ n: 2, got: "now" });
  });
});
