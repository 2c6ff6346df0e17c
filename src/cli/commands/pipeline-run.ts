/**
 * `sluice pipeline run <folder> [--to a,b] [--from x] [--partition p] [--dry-run] [--json]`:
 * runs exactly the steps between a start and the chosen ends ("run up to here"), in
 * topological order, with one partition, stopping at the first failure. The plan is a
 * durable run: `--detach` only starts it, Ctrl-C detaches (or cancels, with
 * `--cancel-on-interrupt`), and it survives a crash of the CLI.
 */
import type { Command } from "commander";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import type { PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { json, type CommandContext } from "../command.js";
import { parseJsonArg } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject } from "../project.js";
import { executePlan } from "./pipeline-plan-exec.js";
import { assertStepsLoaded, folderArg, pipelineFolder, planSteps } from "./pipeline-shared.js";

/** Registers `sluice pipeline run`. */
export function registerPipelineRun(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("run")
    .description(
      "run a slice of a pipeline: from a start (default: the sole valid start, or the sole one reaching every --to) up to --to, in order, stopping at the first failure",
    )
    .argument("<folder>", "pipeline folder, e.g. f/demo")
    .option(
      "--to <nodes>",
      "end nodes: script names, paths or asset URIs, comma-separated (default: everything downstream)",
    )
    .option(
      "--from <script>",
      "start script (default: the folder's sole valid start, or the sole one reaching every --to; without --to, every script)",
    )
    .option("--partition <value>", "run every step for this partition (default: resolved once from the start's scheme)")
    .option("--args <json>", "extra arguments given to every step, as a JSON object")
    .option("--dry-run", "print the planned steps without running them")
    .option("--detach", "start the plan and exit; a running sluice dev, server or worker runs it")
    .option("--cancel-on-interrupt", "Ctrl-C cancels the plan (default: Ctrl-C detaches and it goes on)")
    .option("--lease <duration>", "lease of this process's worker: another process takes over this long after a crash")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (folderText: string, opts) => {
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const folder = pipelineFolder(
        await PipelineCatalog.load(project.root),
        folderArg(project.root, cx.io.cwd, folderText),
      );
      const args = parseJsonArg(opts.args, "--args", {}) as Record<string, unknown>;
      const plan = planSteps(folder, { to: opts.to, from: opts.from });
      assertStepsLoaded(folder, plan.steps);
      const summary = {
        folder: folder.folder,
        start: plan.start ?? null,
        ends: plan.ends,
        steps: plan.steps,
        partition: opts.partition ?? null,
      };
      if (opts.dryRun) {
        if (opts.json) json(cx, { ...summary, dryRun: true });
        else {
          cx.io.stdout(
            `plan for ${folder.folder}${opts.partition ? ` (partition ${opts.partition})` : ""}${plan.ends.length ? ` up to ${plan.ends.join(", ")}` : ""}:\n`,
          );
          plan.steps.forEach((s, i) => cx.io.stdout(`  ${i + 1}. ${s}\n`));
          cx.io.stdout("(dry run: nothing was started)\n");
        }
        return;
      }
      const payload: PlanPayload = {
        folder: folder.folder,
        steps: plan.steps,
        ...(opts.partition !== undefined && { partition: opts.partition }),
        ...(Object.keys(args).length > 0 && { args }),
      };
      await executePlan(cx, opts, payload, summary);
    });
}
