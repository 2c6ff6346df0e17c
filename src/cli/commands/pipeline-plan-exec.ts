/**
 * Running one plan (`sluice:pipeline-plan`) from the CLI and printing each step's outcome:
 * shared by `sluice pipeline run` and `sluice pipeline resume`.
 */
import type { Engine } from "../../engine/engine.js";
import { decodeValue } from "../../core/serde.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { moduleName } from "../../worker/script-paths.js";
import { json, type CommandContext } from "../command.js";
import { statusLabel, tookLabel } from "../format.js";
import { withPipelineRuntime } from "./pipeline-local.js";

/** Starts the plan, waits for it, prints the steps; sets exit code 1 unless it succeeded. */
export async function executePlan(
  cx: CommandContext,
  opts: { dir?: string; db?: string; json?: boolean },
  payload: PlanPayload,
  summary: Record<string, unknown>,
  onStarted?: (planId: string, engine: Engine) => Promise<void>,
): Promise<void> {
  await withPipelineRuntime(cx.io, opts, payload.steps, async (_host, engine) => {
    const handle = await engine.enqueueRun(PLAN_WORKFLOW, payload);
    await onStarted?.(handle.id, engine);
    if (!opts.json) cx.io.stderr(`plan run ${handle.id}: ${payload.steps.length} step(s)\n`);
    const run = await engine.waitForRun(handle.id);
    const children = (await engine.store.listRuns({ parentId: run.id, limit: 1000 })).reverse();
    const steps = payload.steps.map((step) => {
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
        partition: result?.partition ?? payload.partition ?? null,
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
}
