/**
 * `sluice pipeline run <folder> [--to a,b] [--from x] [--partition p] [--dry-run] [--json]`:
 * runs exactly the steps between a start and the chosen ends ("run up to here"), in
 * topological order, with one partition, stopping at the first failure.
 */
import type { Command } from "commander";
import { decodeValue } from "../../core/serde.js";
import { moduleName } from "../../worker/script-paths.js";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { PipelineInvalidError } from "../../pipeline/runtime/errors.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { formatDiagnostic } from "../../pipeline/diagnostics.js";
import { json, type CommandContext } from "../command.js";
import { statusLabel, tookLabel } from "../format.js";
import { parseJsonArg } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject } from "../project.js";
import { withPipelineRuntime } from "./pipeline-local.js";
import { folderArg, pipelineFolder, planSteps } from "./pipeline-shared.js";

/** Registers `sluice pipeline run`. */
export function registerPipelineRun(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("run")
    .description(
      "run a slice of a pipeline: from a start (default: the sole valid start) up to --to, in order, stopping at the first failure",
    )
    .argument("<folder>", "pipeline folder, e.g. f/demo")
    .option(
      "--to <nodes>",
      "end nodes: script names, paths or asset URIs, comma-separated (default: everything downstream)",
    )
    .option("--from <script>", "start script (default: the folder's sole valid start; without --to, every script)")
    .option("--partition <value>", "run every step for this partition (default: resolved once from the start's scheme)")
    .option("--args <json>", "extra arguments given to every step, as a JSON object")
    .option("--dry-run", "print the planned steps without running them")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (folderText: string, opts) => {
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const folder = pipelineFolder(PipelineCatalog.scan(project.root), folderArg(project.root, cx.io.cwd, folderText));
      if (!folder.ok)
        throw new PipelineInvalidError(
          folder.folder,
          folder.diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic),
        );
      const args = parseJsonArg(opts.args, "--args", {}) as Record<string, unknown>;
      const plan = planSteps(folder, { to: opts.to, from: opts.from });
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
      await withPipelineRuntime(cx.io, opts, plan.steps, async (_host, engine) => {
        const payload: PlanPayload = {
          folder: folder.folder,
          steps: plan.steps,
          ...(opts.partition !== undefined && { partition: opts.partition }),
          ...(Object.keys(args).length > 0 && { args }),
        };
        const handle = await engine.enqueueRun(PLAN_WORKFLOW, payload);
        if (!opts.json) cx.io.stderr(`plan run ${handle.id}: ${plan.steps.length} step(s)\n`);
        const run = await engine.waitForRun(handle.id);
        const children = (await engine.store.listRuns({ parentId: run.id, limit: 1000 })).reverse();
        const steps = plan.steps.map((step) => {
          const child = children.find((c) => c.workflow === moduleName(step));
          return {
            step,
            run: child?.id ?? null,
            status: child?.status ?? "not run",
            result: child ? (decodeValue(child.result) ?? null) : null,
            error: child?.error?.message ?? null,
            took: child ? tookLabel(child) : null,
          };
        });
        const result = decodeValue<{ partition: string | null } | undefined>(run.result);
        if (opts.json)
          json(cx, {
            ...summary,
            run: run.id,
            status: run.status,
            partition: result?.partition ?? opts.partition ?? null,
            steps,
            error: run.error?.message ?? null,
          });
        else {
          for (const s of steps)
            cx.io.stdout(
              `  ${s.status === "not run" ? "- not run " : statusLabel(s.status as "succeeded")}  ${s.step}${s.took ? `  (${s.took})` : ""}${s.error ? `: ${s.error}` : ""}\n`,
            );
          cx.io.stdout(
            run.status === "succeeded"
              ? `plan ${run.id} succeeded${result?.partition ? ` for partition ${result.partition}` : ""}\n`
              : `plan ${run.id} ${run.status}: ${run.error?.message ?? ""}\n`,
          );
        }
        if (run.status !== "succeeded") cx.setExitCode(1);
      });
    });
}
