/**
 * Durable backfills as a built-in workflow, `sluice:pipeline-backfill`: one run per
 * backfill, one child plan run (`sluice:pipeline-plan`) per partition, and under each plan
 * one child run per step. The backfill first checkpoints which partitions are already done
 * (every step succeeded for it at the step's current code version; `force` redoes them),
 * then starts every remaining partition's plan in one suspension. `concurrency` caps the
 * steps running at once across the backfill through the engine's concurrency keys, so any
 * number of workers, in any process, share the limit. A crash of the process running it
 * (CLI, server or worker) costs nothing finished: the run and its children are in the
 * store and the next worker continues from the checkpoints. Mapped stages (steps of a
 * coarser scheme, `--map-partitions`) run after the range's partitions all succeeded, one
 * plan per coarser partition, each stage after the one before.
 */
import type { WorkflowContext } from "../../sdk/context.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { type AnyWorkflow, defineWorkflow } from "../../sdk/workflow.js";
import { markTerminal } from "../../worker/control.js";
import { cancelRequested } from "./backfill-cancel.js";
import { codeVersion, isDone, readDone } from "./done-marks.js";
import { PipelineRuntimeError } from "./errors.js";
import { PLAN_WORKFLOW, type PlanHost, type PlanPayload } from "./plan-workflow.js";
import { currentExecution } from "./run-context.js";

/** Name of the backfill workflow. */
export const BACKFILL_WORKFLOW = "sluice:pipeline-backfill";

/** Payload of a backfill run. */
export interface BackfillPayload {
  readonly folder: string;
  /** Member paths in run order (only those of the range's scheme). */
  readonly steps: readonly string[];
  /** Partition values, in order. */
  readonly partitions: readonly string[];
  /** Steps running at once across the backfill (default 1). */
  readonly concurrency?: number;
  /** Redo partitions and steps that are already done. */
  readonly force?: boolean;
  readonly args?: Record<string, unknown>;
  /** Human description of the range's scheme, e.g. `daily (tz=UTC, format=%Y-%m-%d)`. */
  readonly scheme?: string;
  /** The backfill this one resumes (`sluice pipeline backfill resume`). */
  readonly resumeOf?: string;
  /** Steps of coarser schemes selected through a partition mapping, run after `partitions`, in order. */
  readonly mapped?: readonly MappedPayload[];
}

/** One mapped stage of a backfill. */
interface MappedPayload {
  /** Human description of the stage's scheme. */
  readonly scheme?: string;
  readonly steps: readonly string[];
  readonly partitions: readonly string[];
}

/** The checkpoint key of a stage's todo list (stage 0: the range itself). */
function todoKey(stage: number): string {
  return stage === 0 ? "backfill:todo" : `backfill:todo:${stage}`;
}

/** What the backfill checkpoints before starting its partitions. */
export interface BackfillTodo {
  /** Partitions to run. */
  readonly run: string[];
  /** Partitions whose every step was already done at its current code version. */
  readonly skipped: string[];
}

/** What a backfill run returns. */
interface BackfillResult {
  readonly succeeded: string[];
  readonly skipped: string[];
  readonly failed: string[];
}

/** A backfill in which some partitions failed. */
export class BackfillFailedError extends PipelineRuntimeError {
  constructor(
    readonly backfill: string,
    readonly failed: readonly string[],
    total: number,
  ) {
    super(
      "PIPELINE_BACKFILL_FAILED",
      `${failed.length} of ${total} partition(s) failed: ${failed.join(", ")}; fix the step, then retry only them with: sluice pipeline backfill resume ${backfill}`,
    );
  }
}

/** The concurrency key a backfill's steps share. */
function backfillConcurrencyKey(backfillRun: string): string {
  return `pipeline-backfill:${backfillRun}`;
}

function checkPayload(p: unknown): BackfillPayload {
  const x = p as BackfillPayload;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string");
  if (!x || typeof x !== "object" || typeof x.folder !== "string" || !strings(x.steps) || !strings(x.partitions)) {
    throw markTerminal(
      new InvalidInputError(
        `${BACKFILL_WORKFLOW} needs {"folder": "...", "steps": [...], "partitions": [...]}; start it with sluice pipeline backfill`,
      ),
    );
  }
  return x;
}

/** Which partitions still need running: not every step done at its current version (pure but for the reads). */
async function todo(
  host: PlanHost,
  stage: { steps: readonly string[]; partitions: readonly string[] },
  force: boolean | undefined,
): Promise<BackfillTodo> {
  if (force) return { run: [...stage.partitions], skipped: [] };
  const versions = stage.steps.map((s) => [s, codeVersion(host.member(s).source)] as const);
  const run: string[] = [];
  const skipped: string[] = [];
  for (const p of stage.partitions) {
    let all = true;
    for (const [step, version] of versions) {
      if (!isDone(await readDone(host.store, step, p), version)) {
        all = false;
        break;
      }
    }
    (all ? skipped : run).push(p);
  }
  return { run, skipped };
}

/** The backfill workflow, bound to a host. */
export function backfillWorkflow(host: PlanHost): AnyWorkflow {
  return defineWorkflow(BACKFILL_WORKFLOW, {
    retries: 2,
    handler: async (payload: unknown, ctx: WorkflowContext): Promise<BackfillResult> => {
      const plan = checkPayload(payload);
      const exec = currentExecution()!;
      const limit = Math.max(1, Math.floor(plan.concurrency ?? 1));
      const stages = [{ steps: plan.steps, partitions: plan.partitions }, ...(plan.mapped ?? [])];
      const total = stages.reduce((n, st) => n + st.partitions.length, 0);
      const succeeded: string[] = [];
      const skipped: string[] = [];
      for (const [k, stage] of stages.entries()) {
        const left = await ctx.run(todoKey(k), () => todo(host, stage, plan.force), { retry: false });
        skipped.push(...left.skipped);
        const outcomes = await Promise.allSettled(
          left.run.map((partition) => {
            const child: PlanPayload = {
              folder: plan.folder,
              steps: stage.steps,
              partition,
              ...(plan.args && { args: plan.args }),
              skipDone: !plan.force,
              concurrency: { key: backfillConcurrencyKey(exec.run.id), limit },
              backfill: exec.run.id,
            };
            return exec.callTask(
              { kind: "script", path: PLAN_WORKFLOW },
              {},
              child as unknown as Record<string, unknown>,
            );
          }),
        );
        if (await cancelRequested(host.store, exec.run.id)) ctx.bail(`backfill ${exec.run.id} was cancelled`);
        succeeded.push(...left.run.filter((_, i) => outcomes[i]!.status === "fulfilled"));
        const failed = left.run.filter((_, i) => outcomes[i]!.status === "rejected");
        if (failed.length > 0) throw markTerminal(new BackfillFailedError(exec.run.id, failed, total));
      }
      return { succeeded, skipped, failed: [] };
    },
  });
}
