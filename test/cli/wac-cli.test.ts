import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIO } from "../../src/cli/io.js";
import { run } from "../../src/cli/run.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/data/etl.ts": `
    import { workflow, task } from "windmill-client";
    async function extract(url: string) { console.log("extracting " + url); return [1, 2, 3]; }
    async function load(rows: number[]) { console.log("loading " + rows.length); return rows.length; }
    export const main = workflow(async (url: string, limit = 10) => {
      console.log("etl starts");
      const rows = await task(extract)(url);
      console.log("extracted " + rows.length);
      const n = await task(load)(rows.slice(0, limit));
      console.log("etl done");
      return { n };
    });`,
  "f/ops/gate.ts": `
    import { workflow, waitForApproval } from "windmill-client";
    export const main = workflow(async () => {
      const a = await waitForApproval({ timeout: 600, selfApproval: false, form: { reason: { type: "string" } } });
      return a;
    });`,
};

async function cli(root: string, ...argv: string[]) {
  const io = bufferIO(root);
  io.env.USER = "alice";
  const code = await run(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

describe("CLI with workflows as code", () => {
  it("enqueue by path maps JSON to parameters; show lists the workflow's and each task's logs in order", async () => {
    const root = makeProject(FILES);
    expect(
      (await cli(root, "enqueue", "f/data/etl", '{"url": "https://example.com/x", "limit": 2}', "--id", "etl-1")).code,
    ).toBe(0);
    const worker = await cli(root, "worker", "--exit-when-idle", "--idle", "300ms", "--quiet");
    expect(worker.code).toBe(0);
    const shown = JSON.parse((await cli(root, "show", "etl-1", "--json")).out);
    expect(shown).toMatchObject({ status: "succeeded", result: { n: 2 } });
    expect(shown.logs.map((l: { message: string; task: string | null }) => [l.task, l.message])).toEqual([
      [null, "etl starts"],
      ["extract", "extracting https://example.com/x"],
      [null, "extracted 3"],
      ["load", "loading 2"],
      [null, "etl done"],
    ]);
    const text = (await cli(root, "show", "etl-1")).out;
    expect(text).toMatch(/children\n\s+✓ succeeded\s+\S+\s+f\/data\/etl:extract/);
    expect(text).toMatch(/\(extract \w{8}\) extracting/);
    const bad = await cli(root, "enqueue", "f/data/etl", '{"uri": "typo"}');
    expect(bad.code).toBe(1); // refused at enqueue, not when the run starts
    expect(bad.err).toBe('sluice: unknown parameter "uri" for f/data/etl: its parameters are url, limit\n');
  });

  it("approve refuses the creator when selfApproval is false, then accepts another user with a form value", async () => {
    const root = makeProject(FILES);
    await cli(root, "enqueue", "f/ops/gate", "{}", "--id", "gate-1");
    const controller = new AbortController();
    const io = bufferIO(root, controller.signal);
    const worker = run(["worker", "--quiet"], io);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    await eventually(async () => (await store.getRun("gate-1"))?.status === "waiting");
    const self = await cli(root, "approve", "gate-1");
    expect(self.code).toBe(1);
    expect(self.err).toMatch(/the user who started run gate-1 cannot decide this approval \(selfApproval: false\)/);
    const invalid = await cli(root, "approve", "gate-1", "--as", "bob", "--value", '{"reason": 5}');
    expect(invalid.err).toMatch(/the form value is not valid: "reason" must be a string/);
    const ok = await cli(root, "approve", "gate-1", "--as", "bob", "--value", '{"reason": "ship it"}');
    expect(ok.out).toBe("approved gate-1 (waitForApproval) as bob\n");
    const again = await cli(root, "approve", "gate-1", "--as", "carol", "--reject");
    expect(again.code).toBe(1);
    await eventually(async () => (await store.getRun("gate-1"))?.status === "succeeded");
    expect(JSON.parse((await store.getRun("gate-1"))!.result!)).toEqual({
      value: { reason: "ship it" },
      approver: "bob",
      approved: true,
    });
    controller.abort();
    await worker;
    await store.close();
  });
});
