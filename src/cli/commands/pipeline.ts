/** `sluice pipeline …`: asset pipelines (seed 001) — graph, run, backfill, status. */
import type { Command } from "commander";
import type { CommandContext } from "../command.js";
import { registerPipelineBackfill } from "./pipeline-backfill.js";
import { registerPipelineCancel } from "./pipeline-cancel.js";
import { registerPipelineGraph } from "./pipeline-graph.js";
import { registerPipelineResume } from "./pipeline-resume.js";
import { registerPipelineRun } from "./pipeline-run.js";
import { registerPipelineStatus } from "./pipeline-status.js";

/** Registers the `pipeline` command group. */
export function registerPipeline(program: Command, cx: CommandContext): void {
  const pipeline = program
    .command("pipeline")
    .description("asset pipelines: folders of scripts wired by the assets they read and write");
  for (const register of [
    registerPipelineGraph,
    registerPipelineRun,
    registerPipelineResume,
    registerPipelineCancel,
    registerPipelineBackfill,
    registerPipelineStatus,
  ])
    register(pipeline, cx);
  for (const c of pipeline.commands)
    c.exitOverride().configureOutput({ writeOut: (t) => cx.io.stdout(t), writeErr: (t) => cx.io.stderr(t) });
}
