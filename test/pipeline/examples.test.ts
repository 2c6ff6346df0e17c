/**
 * The runnable example in examples/f/pipeline_demo (what `sluice dev examples` loads):
 * Quickstart, a TypeScript + Python daily join, a DuckDB rollup into a data table, a
 * debounced Bash report and a webhook, end to end.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { makeProject, REPO } from "../helpers/project.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("examples/f/pipeline_demo", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    const root = makeProject({}, "sluice-pipeline-demo-");
    cpSync(join(REPO, "examples", "f", "pipeline_demo"), join(root, "f", "pipeline_demo"), { recursive: true });
    const report = join(root, "f", "pipeline_demo", "report.sh");
    writeFileSync(report, readFileSync(report, "utf8").replace("# debounce 5s", "# debounce 1s"));
    p = await startPipelines({}, { root });
  });
  afterAll(async () => p?.close());

  it("loads without errors", () => {
    const folder = p.pipelines.catalog().folder("f/pipeline_demo")!;
    expect(folder.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(folder.members).toHaveLength(8);
  });

  it("runs the whole demo from the runs sluice dev enqueues", async () => {
    const config = JSON.parse(readFileSync(join(REPO, "examples", "sluice.json"), "utf8")) as {
      dev: { enqueue: Array<{ workflow: string; payload?: unknown }> };
    };
    for (const item of config.dev.enqueue.filter((e) => e.workflow.startsWith("f/pipeline_demo/")))
      await p.engine.enqueueRun(item.workflow, item.payload ?? {});
    await p.settle({ timeoutMs: 30_000, quietMs: 1_500 });
    const status = async (name: string) => (await p.runsOf(name)).map((r) => r.status);
    expect(await status("f/pipeline_demo/transform")).toEqual(["succeeded"]);
    expect(await status("f/pipeline_demo/enrich")).toEqual(["succeeded"]);
    const [rollup] = await p.runsOf("f/pipeline_demo/rollup");
    expect(decodeValue(rollup!.result)).toEqual([
      { kind: "click", events: 1, minutes: 12 },
      { kind: "view", events: 2, minutes: 15 },
    ]);
    expect(await status("f/pipeline_demo/report")).toEqual(["succeeded"]);
    const assets = await p.pipelines.assets();
    expect(new TextDecoder().decode(await assets.volumes.read("reports", "latest.txt"))).toMatch(
      /^report for 2026-05-16 at /,
    );
  });

  it("answers the webhook", async () => {
    const h = await p.pipelines.webhook("f/pipeline_demo/receive", { tenant_id: "acme", amount: 5 });
    expect(await h.result({ timeoutMs: 10_000 })).toEqual({ tenant: "acme", amount: 5 });
  });
});
