/**
 * The live diagram from Python source: every Python seed example analysed through the API's
 * `DiagramSource`, valid by the diagram rules, with the checkpoint keys the engine uses.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateDiagram, WorkflowSyntaxError } from "../../src/diagram/index.js";
import { DiagramSource } from "../../src/http/diagram-source.js";
import type { WorkflowInfo } from "../../src/store/types.js";
import { REPO } from "../helpers/project.js";

const ROOT = join(REPO, "test", "fixtures", "python-wac");
const source = new DiagramSource(ROOT);
const info = (file: string) => ({ name: file.replace(/\.py$/, ""), source: file }) as WorkflowInfo;
const keyed = (nodes: Array<{ kind: string; key?: string }>) => nodes.filter((n) => n.key).map((n) => [n.kind, n.key]);

describe("diagram of Python workflows", () => {
  it("every Python seed example gives a valid diagram", async () => {
    const files = readdirSync(join(ROOT, "f", "py")).filter((f) => f.endsWith(".py"));
    expect(files.length).toBeGreaterThan(25);
    const views = await Promise.all(files.map((f) => source.forWorkflow(info(`f/py/${f}`))));
    for (const [i, view] of views.entries()) {
      expect(validateDiagram(view.diagram), files[i]).toEqual([]);
      expect(view.diagram.workflow, files[i]).toMatchObject({ name: "main", dialect: "windmill" });
    }
  }, 60_000);

  it("keys match the checkpoint keys of a run (quickstart, gather, error handling, approval)", async () => {
    const quick = (await source.forWorkflow(info("f/py/quickstart.py"))).diagram;
    expect(keyed(quick.nodes)).toEqual([
      ["step", "started_at"],
      ["task", "fetch_data"],
      ["task", "transform"],
      ["sleep", "sleep"],
      ["task", "notify"],
    ]);
    const gather = (await source.forWorkflow(info("f/py/gather.py"))).diagram;
    expect(gather.nodes.filter((n) => n.kind === "parallel" || n.kind === "join").map((n) => n.kind)).toEqual([
      "parallel",
      "join",
      "parallel",
      "join",
    ]);
    expect(keyed(gather.nodes).map((k) => k[1])).toEqual([
      "fetch_user",
      "fetch_user#2",
      "fetch_user#3",
      "enrich_user",
      "enrich_user#2",
      "enrich_user#3",
    ]);
    const errors = (await source.forWorkflow(info("f/py/error_handling.py"))).diagram;
    expect(errors.edges).toEqual(expect.arrayContaining([{ from: "try:1", to: "catch:1", label: "catch" }]));
    const options = (await source.forWorkflow(info("f/py/task_options.py"))).diagram;
    expect(options.nodes.find((n) => n.kind === "task")).toMatchObject({
      key: "heavy_compute",
      options: { timeout: 600, tag: "gpu", cache_ttl: 3600, priority: 10 },
    });
    const parallel = (await source.forWorkflow(info("f/py/parallel.py"))).diagram;
    expect(parallel.nodes.find((n) => n.kind === "task")).toMatchObject({ parent: "parallel:1", repeated: true });
    const gate = (await source.forWorkflow(info("f/py/deployment_gate.py"))).diagram;
    expect(keyed(gate.nodes)).toEqual([
      ["task", "run_tests"],
      ["task", "deploy_to_staging"],
      ["step", "approval_urls"],
      ["step", "notify_team"],
      ["approval", "waitForApproval"],
      ["task", "deploy_to_production"],
    ]);
  });

  it("a syntax error is reported with its line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-pydiag-"));
    writeFileSync(join(dir, "bad.py"), "from wmill import workflow\n\n@workflow\nasync def main(:\n    pass\n");
    const err = await new DiagramSource(dir).forWorkflow(info("bad.py")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowSyntaxError);
    expect((err as WorkflowSyntaxError).line).toBe(4);
  });
});
