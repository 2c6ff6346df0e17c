/**
 * `sluice pipeline resume <plan id>`: runs every step of a failed or cancelled plan that
 * did not succeed (the failed step and all the steps it left unrun), in order, for the
 * same partition: the command a failed `sluice pipeline run` prints. On a plan still running
 * (detached, or left by a CLI that died) it follows it here, this process's worker taking
 * over the steps whose lease expired.
 */
import type { Command } from "commander";
import { decodeValue } from "../../core/serde.js";
import { isActive } from "../../core/run-status.js";
import { planResume, recordResume } from "../../pipeline/runtime/plan-resume.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { json, type CommandContext } from "../command.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";
import { continuePlan, executePlan } from "./pipeline-plan-exec.js";

/** Registers `sluice pipeline resume`. */
export function registerPipelineResume(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("resume")
    .description("run again every step of a failed plan that did not succeed, for the same partition")
    .argument("<plan>", "the plan run id a failed sluice pipeline run printed")
    .option("--dry-run", "print the steps without running them")
    .option("--detach", "start the resumed plan and exit; a running sluice dev, server or worker runs it")
    .option("--cancel-on-interrupt", "Ctrl-C cancels the plan (default: Ctrl-C detaches and it goes on)")
    .option("--lease <duration>", "lease of this process's worker: another process takes over this long after a crash")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      const live = await withEngine(cx.io, opts, async (engine) => {
        const run = await engine.store.getRun(id);
        return run && run.workflow === PLAN_WORKFLOW && isActive(run.status) ? run : null;
      });
      if (live) {
        const payload = decodeValue<PlanPayload>(live.payload);
        if (!opts.json)
          cx.io.stderr(
            `plan ${id} is still ${live.status}: following it (steps left by a process that died are taken over when their lease expires)
`,
          );
        if (opts.dryRun || opts.detach) return;
        await continuePlan(cx, opts, id, payload.steps, { folder: payload.folder, steps: payload.steps });
        return;
      }
      const resume = await withEngine(cx.io, opts, (engine) => planResume(engine.store, id));
      const summary = {
        folder: resume.payload.folder,
        resumes: resume.plan,
        done: resume.done,
        steps: resume.payload.steps,
        partition: resume.payload.partition ?? null,
      };
      if (resume.payload.steps.length === 0) {
        if (opts.json) json(cx, { ...summary, status: resume.status, resumed: false });
        else
          cx.io.stdout(
            `plan ${resume.plan} ${resume.status}${resume.via.length ? ` (it resumed ${id})` : ""}: every step succeeded, nothing to resume\n`,
          );
        return;
      }
      if (opts.dryRun) {
        if (opts.json) json(cx, { ...summary, dryRun: true });
        else {
          cx.io.stdout(
            `resume of plan ${id}${summary.partition ? ` (partition ${summary.partition})` : ""}: ${resume.done.length} step(s) already succeeded\n`,
          );
          resume.payload.steps.forEach((s, i) => cx.io.stdout(`  ${i + 1}. ${s}\n`));
          cx.io.stdout("(dry run: nothing was started)\n");
        }
        return;
      }
      if (!opts.json)
        cx.io.stderr(
          `resuming plan ${resume.plan}${resume.via.length ? ` (the last resume of ${id})` : ""}: ${resume.payload.steps.length} step(s) that did not succeed${resume.done.length ? `; already done: ${resume.done.join(", ")}` : ""}\n`,
        );
      await executePlan(cx, opts, resume.payload, summary, (next, engine) =>
        recordResume(engine.store, resume.plan, next),
      );
    });
}
