/**
 * Durable backfills as a built-in workflow, `sluice:pipeline-backfill`: one run per
 * backfill, one child plan run (`sluice:pipeline-plan`) per partition, and under each plan
 * one child run per step. The backfill first checkpoints which partitions are already done
 * (every step succeeded for it at the step's current code version; `force` redoes them),
 * then starts every remaining partition's plan in one suspension. `concurrency` caps the
 * steps running at once across the backfill through the engine's concurrency keys, so any
 * number of workers, in any process, share the limit. A crash of the process running it
 * (CLI, server or worker) costs nothing finished: the run and its children are in the
 * store and the next worker continues from the checkpoints.
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
}

/** What the backfill checkpoints before starting its partitions. */
export interface BackfillTodo {
  /** Partitions to run. */
  readonly run: string[];
  /** Partitions whose every step was already done at its current code version. */
  readonly skipped: string[];
}

/** What a backfill run returns. */
export interface BackfillResult {
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
export function backfillConcurrencyKey(backfillRun: string): string {
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
async function todo(host: PlanHost, plan: BackfillPayload): Promise<BackfillTodo> {
  if (plan.force) return { run: [...plan.partitions], skipped: [] };
  const versions = plan.steps.map((s) => [s, codeVersion(host.member(s).source)] as const);
  const run: string[] = [];
  const skipped: string[] = [];
  for (const p of plan.partitions) {
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
      const left = await ctx.run("backfill:todo", () => todo(host, plan), { retry: false });
      const limit = Math.max(1, Math.floor(plan.concurrency ?? 1));
      const outcomes = await Promise.allSettled(
        left.run.map((partition) => {
          const child: PlanPayload = {
            folder: plan.folder,
            steps: plan.steps,
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
      const succeeded = left.run.filter((_, i) => outcomes[i]!.status === "fulfilled");
      const failed = left.run.filter((_, i) => outcomes[i]!.status === "rejected");
      if (failed.length > 0) throw markTerminal(new BackfillFailedError(exec.run.id, failed, plan.partitions.length));
      return { succeeded, skipped: left.skipped, failed };
    },
  });
}
