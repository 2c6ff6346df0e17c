/**
 * `sluice pipeline cancel <plan id>`: cancels a running selective run gracefully — no new
 * step starts, the running step finishes — so `sluice pipeline resume <plan id>` later runs
 * exactly the steps that did not. (Backfills: `sluice pipeline backfill cancel <id>`.)
 */
import type { Command } from "commander";
import { PipelineRuntimeError } from "../../pipeline/runtime/errors.js";
import { isActive } from "../../core/run-status.js";
import { PLAN_WORKFLOW } from "../../pipeline/runtime/plan-workflow.js";
import { json, type CommandContext } from "../command.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";
import { cancelPlanWithNotice } from "./pipeline-plan-follow.js";

/** Registers `sluice pipeline cancel`. */
export function registerPipelineCancel(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("cancel")
    .description("cancel a running plan (sluice pipeline run): the running step finishes, no new one starts")
    .argument("<plan>", "the plan run id sluice pipeline run printed")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      await withEngine(cx.io, opts, async (engine) => {
        const run = await engine.store.getRun(id);
        if (!run || run.workflow !== PLAN_WORKFLOW)
          throw new PipelineRuntimeError(
            "PIPELINE_PLAN_UNKNOWN",
            `${id} is not a pipeline plan run${run ? ` (it is a run of ${run.workflow})` : ""}; pass the id sluice pipeline run printed (plan run <id>); for a backfill use sluice pipeline backfill cancel`,
          );
        if (!isActive(run.status)) {
          if (opts.json) json(cx, { id, status: run.status, cancelled: false });
          else cx.io.stdout(`plan ${id} had already finished (${run.status}); nothing to cancel\n`);
          return;
        }
        await cancelPlanWithNotice(cx, engine, id, "cancelled with sluice pipeline cancel");
        const after = (await engine.store.getRun(id))!;
        if (opts.json) json(cx, { id, status: after.status, cancelled: true });
        else cx.io.stdout(`plan ${id} ${after.status}; resume with: sluice pipeline resume ${id}\n`);
      });
    });
}
