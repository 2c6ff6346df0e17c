import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { delay } from "../helpers/tmp.js";

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 500 });
});
function engineFor(root: string) {
  const e = createEngine({ database: join(root, ".sluice", "sluice.db"), inlineSleepMs: 50 });
  engines.push(e);
  return e;
}

const versioned = (v: string) => `
import { defineWorkflow } from "tako.sh";
import { label } from "../lib/label";
export default defineWorkflow<{ nap: number }>("versioned", {
  handler: async (payload, ctx) => {
    const first = await ctx.run("first", () => label("${v}"));
    await ctx.sleep("nap", payload.nap);
    return { first, second: label("${v}") };
  },
});
`;

describe("Project loader", () => {
  it("bundles tako.sh and sluice imports, relative imports and npm packages, and registers the workflows", async () => {
    const root = makeProject({
      "lib/label.ts": `export const label = (v: string) => "code " + v;`,
      "workflows/versioned.ts": versioned("v1"),
      "workflows/native.ts": `
        import { defineWorkflow } from "sluice";
        import ms from "ms";
        export const native = defineWorkflow("native", { handler: async () => ms("2h") });
      `,
      "workflows/native.test.ts": `throw new Error("tests are not loaded")`,
      "other/not-a-workflow.ts": `throw new Error("files outside workflows/ are not loaded")`,
    });
    const e = engineFor(root);
    const project = new Project(root, e);
    const report = await project.loadAll();
    expect(report.errors).toEqual([]);
    expect(report.loaded.map((m) => [m.file, m.workflows.map((w) => w.name)])).toEqual([
      ["workflows/native.ts", ["native"]],
      ["workflows/versioned.ts", ["versioned"]],
    ]);
    await e.start();
    expect(await (await e.enqueueRun("native", {})).result({ timeoutMs: 5000 })).toBe(7_200_000);
    const published = await e.store.listWorkflows();
    expect(
      published.map((w) => [
        w.name,
        w.source,
        w.version === report.loaded[1]!.hash || w.version === report.loaded[0]!.hash,
      ]),
    ).toEqual([
      ["native", "workflows/native.ts", true],
      ["versioned", "workflows/versioned.ts", true],
    ]);
  });

  it("resolves sluice/tako and sluice/windmill like tako.sh and windmill-client: one SDK, one TakoError", async () => {
    const root = makeProject({
      "workflows/subpaths.ts": `
        import { defineWorkflow, TakoError } from "sluice/tako";
        import { TakoError as FromTakoSh } from "tako.sh";
        import { step } from "sluice/windmill";
        import * as wmill from "windmill-client";
        export default defineWorkflow("subpaths", {
          handler: async () => ({
            same: TakoError === FromTakoSh,
            code: new TakoError("TAKO_UNAVAILABLE").code,
            windmill: step === wmill.step,
            kind: TakoError.name,
          }),
        });
      `,
    });
    const e = engineFor(root);
    const report = await new Project(root, e).loadAll();
    expect(report.errors).toEqual([]);
    await e.start();
    const { TakoError } = await import("../../src/tako.js");
    const result = await (await e.enqueueRun("subpaths", {})).result({ timeoutMs: 5000 });
    expect(result).toEqual({ same: true, code: "TAKO_UNAVAILABLE", windmill: true, kind: TakoError.name });
  });

  it("reports a broken module with its file and line and keeps loading the others", async () => {
    const root = makeProject({
      "workflows/broken.ts": `import { defineWorkflow } from "tako.sh";\nexport default defineWorkflow("broken", { handler: async () => { return ; } ) });\n`,
      "workflows/fine.ts": `import { defineWorkflow } from "tako.sh";\nexport default defineWorkflow("fine", { handler: async () => 1 });\n`,
    });
    const report = await new Project(root, engineFor(root)).loadAll();
    expect(report.loaded.map((m) => m.file)).toEqual(["workflows/fine.ts"]);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]!.error.message).toMatch(
      /cannot load workflows\/broken\.ts:\n\s+workflows\/broken\.ts:2:\d+: /,
    );
  });

  it("runs that started keep their code version across a reload and a restart; new runs get the new code", async () => {
    const root = makeProject({
      "lib/label.ts": `export const label = (v: string) => "code " + v;`,
      "workflows/versioned.ts": versioned("v1"),
    });
    const e1 = engineFor(root);
    const p1 = new Project(root, e1);
    await p1.loadAll();
    await e1.start();
    const old = await e1.enqueueRun("versioned", { nap: 1500 });
    await delay(200); // claimed, first step done, parked on its sleep
    expect((await old.info()).status).toBe("waiting");

    writeFiles(root, { "workflows/versioned.ts": versioned("v2") });
    await p1.loadFile("workflows/versioned.ts");
    const fresh = await e1.enqueueRun("versioned", { nap: 0 });
    expect(await fresh.result({ timeoutMs: 5000 })).toEqual({ first: "code v2", second: "code v2" });

    // Restart: a new process only knows v2 on disk; the old run must load v1 from the store.
    await e1.stop();
    engines.splice(engines.indexOf(e1), 1);
    const e2 = engineFor(root);
    await new Project(root, e2).loadAll();
    await e2.start();
    expect(await e2.handle(old.id).result({ timeoutMs: 5000 })).toEqual({ first: "code v1", second: "code v1" });
  });

  it("refuses a workflow name defined in two files with DuplicateWorkflowError naming both", async () => {
    const root = makeProject({
      "workflows/a.ts": `import { defineWorkflow } from "sluice";\nexport const a = defineWorkflow("same", { handler: async () => 1 });\n`,
      "workflows/b.ts": `import { defineWorkflow } from "sluice";\nexport const b = defineWorkflow("same", { handler: async () => 2 });\n`,
    });
    const project = new Project(root, engineFor(root));
    await project.loadFile("workflows/a.ts");
    const err = await project.loadFile("workflows/b.ts").then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "DuplicateWorkflowError", code: "DUPLICATE_WORKFLOW", workflow: "same" });
    expect((err as Error).message).toContain("workflows/b.ts");
    expect((err as Error).message).toContain("workflows/a.ts");
  });
});
