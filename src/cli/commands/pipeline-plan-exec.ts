/**
 * Running one plan (`sluice:pipeline-plan`) from the CLI as a durable run: shared by
 * `sluice pipeline run` and `sluice pipeline resume`. The plan is a run in the store; this
 * process runs a worker and follows it (see {@link followPlan}), or with `--detach` only
 * starts it for a running `sluice dev`, `server` or `worker` of the project.
 */
import type { Engine } from "../../engine/engine.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { json, type CommandContext } from "../command.js";
import { localUser } from "../local-user.js";
import { parseDurationOption } from "../options.js";
import { withPipelineRuntime } from "./pipeline-local.js";
import { followPlan, planHints } from "./pipeline-plan-follow.js";

/** The CLI options {@link executePlan} reads. */
export interface PlanExecOptions {
  dir?: string;
  db?: string;
  json?: boolean;
  detach?: boolean;
  cancelOnInterrupt?: boolean;
  /** Lease of this process's worker (e.g. "30s"). */
  lease?: string;
}

/** Starts the plan, then follows it (or detaches); sets exit code 1 unless it succeeded, 130 on Ctrl-C. */
export async function executePlan(
  cx: CommandContext,
  opts: PlanExecOptions,
  payload: PlanPayload,
  summary: Record<string, unknown>,
  onStarted?: (planId: string, engine: Engine) => Promise<void>,
): Promise<void> {
  const leaseMs = opts.lease !== undefined ? parseDurationOption(opts.lease, "--lease") : undefined;
  await withPipelineRuntime(
    cx.io,
    opts,
    payload.steps,
    async (host, engine) => {
      // `--args` reach every step: refused here, as an enqueue of a step would refuse them, before the plan is stored.
      if (payload.args) host.checkStepArguments(payload.steps, payload.args);
      // Started by the person at this machine, named as `sluice enqueue` and the UI of `sluice dev` name them.
      const handle = await engine.enqueueRun(PLAN_WORKFLOW, payload, { createdBy: localUser(cx.io.env) });
      await onStarted?.(handle.id, engine);
      if (opts.detach) {
        if (opts.json) json(cx, { ...summary, run: handle.id, detached: true });
        else
          cx.io.stdout(
            `plan run ${handle.id}: ${payload.steps.length} step(s) started; it runs in any sluice dev, server or worker of this project (none here: --detach)\n${planHints(handle.id)}`,
          );
        return;
      }
      if (!opts.json) cx.io.stderr(`plan run ${handle.id}: ${payload.steps.length} step(s)\n`);
      await followPlan(cx, engine, handle.id, summary, { json: opts.json, cancelOnInterrupt: opts.cancelOnInterrupt });
    },
    { worker: !opts.detach, ...(leaseMs !== undefined && { leaseMs }) },
  );
}

/** Follows plan `id` that is already running (a resume of a live plan), with this process's worker. */
export async function continuePlan(
  cx: CommandContext,
  opts: PlanExecOptions,
  id: string,
  steps: readonly string[],
  summary: Record<string, unknown>,
): Promise<void> {
  const leaseMs = opts.lease !== undefined ? parseDurationOption(opts.lease, "--lease") : undefined;
  await withPipelineRuntime(
    cx.io,
    opts,
    steps,
    async (_host, engine) => {
      await followPlan(cx, engine, id, summary, { json: opts.json, cancelOnInterrupt: opts.cancelOnInterrupt });
    },
    { ...(leaseMs !== undefined && { leaseMs }) },
  );
}
