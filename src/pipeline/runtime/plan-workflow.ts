/**
 * Selective runs and backfills as a durable workflow, `sluice:pipeline-plan`: it resolves
 * the partition once, then runs the planned steps one after the other as child runs
 * (holding no worker slot while a step runs), each with the cascade off and the same
 * explicit partition, and stops at the first failure. Surviving restarts, it shows up in
 * `sluice runs` / `sluice show` like any run.
 */
import type { Store } from "../../store/types.js";
import type { WorkflowContext } from "../../sdk/context.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { TaskError } from "../../sdk/windmill/task-error.js";
import { cancelReason } from "../../store/run-errors.js";
import { type AnyWorkflow, defineWorkflow } from "../../sdk/workflow.js";
import { markTerminal } from "../../worker/control.js";
import { resolvePartition } from "../partition-resolve.js";
import type { MemberScript, PipelineCatalog } from "./catalog.js";
import { PipelinePlanError } from "./errors.js";
import { buildPayload } from "./meta.js";
import { cancelRequested } from "./backfill-cancel.js";
import { codeVersion, isDone, markDone, readDone } from "./done-marks.js";
import { currentExecution } from "./run-context.js";

/** Name of the plan workflow. */
export const PLAN_WORKFLOW = "sluice:pipeline-plan";

/** Payload of a plan run. */
export interface PlanPayload {
  readonly folder: string;
  /** Member paths in run order. */
  readonly steps: readonly string[];
  /** An explicit partition for every step; else resolved from the first step's scheme at the plan's start. */
  readonly partition?: string;
  /** Extra arguments given to every step (e.g. a dynamic partition key). */
  readonly args?: Record<string, unknown>;
  /** Skip steps already done for this partition at their current code version (backfills without `--force`). */
  readonly skipDone?: boolean;
  /** Limit on the steps running at once under one key (a backfill's `--concurrency`). */
  readonly concurrency?: { readonly key: string; readonly limit: number };
  /** The backfill this plan belongs to: a cancel request on it (or on the plan) stops the plan before its next step. */
  readonly backfill?: string;
}

/** One finished step of a plan. */
interface PlanStepResult {
  readonly step: string;
  readonly result: unknown;
  /** Set when the step was not run because it was already done (its earlier run). */
  readonly skipped?: { readonly run: string };
}

/** What a plan run returns. */
interface PlanResult {
  readonly partition: string | null;
  readonly steps: readonly PlanStepResult[];
}

/** What the plan workflow needs from the host. */
export interface PlanHost {
  readonly store: Store;
  catalog(): PipelineCatalog;
  member(ref: string): MemberScript;
}

function checkPayload(p: unknown): PlanPayload {
  const x = p as PlanPayload;
  if (
    !x ||
    typeof x !== "object" ||
    !Array.isArray(x.steps) ||
    x.steps.some((s) => typeof s !== "string") ||
    typeof x.folder !== "string"
  ) {
    throw markTerminal(
      new InvalidInputError(
        `${PLAN_WORKFLOW} needs {"folder": "...", "steps": ["f/x/a.ts", …]}; start it with sluice pipeline run`,
      ),
    );
  }
  return x;
}

/** The plan workflow, bound to a host. */
export function planWorkflow(host: PlanHost): AnyWorkflow {
  return defineWorkflow(PLAN_WORKFLOW, {
    retries: 2,
    handler: async (payload: unknown, ctx: WorkflowContext): Promise<PlanResult> => {
      const plan = checkPayload(payload);
      const exec = currentExecution()!;
      const firedAt = exec.run.createdAt;
      const partition =
        plan.partition ??
        (await ctx.run(
          "plan:partition",
          () => {
            const first = plan.steps[0] ? host.member(plan.steps[0]) : undefined;
            const spec = first ? host.catalog().scheme(first)?.spec : undefined;
            const r = resolvePartition(spec, { fireTime: firedAt, args: plan.args ?? {} });
            if (r.status === "before-start") ctx.logger.warn(r.warning);
            return r.status === "resolved" ? r.value : null;
          },
          { retry: false },
        )) ??
        undefined;
      const checks = await ctx.run(
        "plan:done",
        async () => {
          const out: Record<string, { version: string; skipRun: string | null }> = {};
          for (const step of plan.steps) {
            const version = codeVersion(host.member(step).source);
            const mark = plan.skipDone && partition !== undefined ? await readDone(host.store, step, partition) : null;
            out[step] = { version, skipRun: isDone(mark, version) ? mark!.run : null };
          }
          return out;
        },
        { retry: false },
      );
      const done: PlanStepResult[] = [];
      for (const [i, step] of plan.steps.entries()) {
        const m = host.member(step);
        const check = checks[step];
        if (check?.skipRun) {
          done.push({ step, result: null, skipped: { run: check.skipRun } });
          continue;
        }
        // A cancel request on the backfill, or on this plan itself (`sluice pipeline cancel`,
        // Ctrl-C with --cancel-on-interrupt), starts no further step.
        const backfill = plan.backfill;
        const go = await ctx.run(
          `plan:go:${i}`,
          async () =>
            !(backfill !== undefined && (await cancelRequested(host.store, backfill))) &&
            !(await cancelRequested(host.store, exec.run.id)),
          { retry: false },
        );
        if (!go)
          ctx.bail(
            backfill !== undefined
              ? `backfill ${backfill} was cancelled before step ${step}`
              : `plan was cancelled before step ${step}`,
          );
        const args = buildPayload(
          { ...(plan.args ?? {}), ...(partition !== undefined && { partition }) },
          {
            trigger: "plan",
            depth: 0,
            cascade: false,
            cascadeOffReason: "selective run: the plan runs the next steps itself",
            firedAt,
          },
        );
        try {
          const notLoaded = host.catalog().notLoaded(m);
          if (notLoaded !== undefined) throw new Error(`not loaded: ${notLoaded}`);
          const result = await exec.callTask(
            { kind: "script", path: m.name },
            {
              ...(m.analyzed.annotations.tag && { tag: m.analyzed.annotations.tag.name }),
              ...(plan.concurrency && {
                concurrency_key: plan.concurrency.key,
                concurrency_limit: plan.concurrency.limit,
                // later steps first, so partitions finish one by one rather than step by step
                priority: i,
              }),
            },
            args,
          );
          if (partition !== undefined && check)
            await markDone(host.store, step, partition, { version: check.version, run: exec.run.id, at: Date.now() });
          done.push({ step, result });
        } catch (err) {
          // A step cancelled by the cancel of its backfill or of this plan (a step still waiting for a
          // concurrency slot is cancelled at once) ends the plan cancelled: nothing to fix, resume runs it.
          // A step that failed on its own still fails the plan, cancel or not.
          const child = err instanceof TaskError ? err.child_job_id : null;
          // The step's own cancel reason (e.g. "cancelled by Ctrl-C (answered cancel)") when it was so stopped, else null.
          const stopped = await ctx.run(
            `plan:stopped:${i}`,
            async () => {
              const run = child !== null ? await host.store.getRun(child) : null;
              if (run?.status !== "cancelled") return null;
              const requested =
                (backfill !== undefined && (await cancelRequested(host.store, backfill))) ||
                (await cancelRequested(host.store, exec.run.id));
              return requested ? (cancelReason(run.error) ?? "") : null;
            },
            { retry: false },
          );
          if (typeof stopped === "string")
            ctx.bail(
              (backfill !== undefined
                ? `backfill ${backfill} was cancelled during step ${step}`
                : `plan was cancelled during step ${step}`) + (stopped ? `: ${stopped}` : ""),
            );
          throw markTerminal(
            new PipelinePlanError(
              exec.run.id,
              step,
              done.map((d) => d.step),
              plan.steps.slice(i + 1),
              (err as Error)?.message ?? String(err),
            ),
          );
        }
      }
      return { partition: partition ?? null, steps: done };
    },
  });
}
