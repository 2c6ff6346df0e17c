/**
 * Resuming a plan that failed or was cancelled (`sluice pipeline resume <plan id>`): a new
 * plan of every step that did not succeed — the failed step and the steps after it that
 * never ran — in the original order, for the same partition and arguments.
 */
import { decodeValue } from "../../core/serde.js";
import type { RunRecord, RunStatus, Store } from "../../store/types.js";
import { moduleName } from "../../worker/script-paths.js";
import { PipelineRuntimeError } from "./errors.js";
import { PLAN_WORKFLOW, type PlanPayload } from "./plan-workflow.js";

/** Key prefix recording which plan resumed a plan. */
const RESUMED_PREFIX = "pipeline:plan-resumed:";

/** Records that `next` resumes `plan`, so resuming `plan` again continues from `next`. */
export async function recordResume(store: Store, plan: string, next: string): Promise<void> {
  await store.kvPut(`${RESUMED_PREFIX}${plan}`, next);
}

/** What resuming a plan would run. */
export interface PlanResume {
  /** The plan resumed: the one asked for, or the last plan that resumed it. */
  readonly plan: string;
  /** Plans that already resumed the one asked for, in order. */
  readonly via: string[];
  readonly status: RunStatus;
  /** Steps that already succeeded (not run again). */
  readonly done: string[];
  /** The new plan; its `steps` are empty when the plan already succeeded. */
  readonly payload: PlanPayload;
}

/** The steps of `steps` whose runnable has no succeeded run among `children`, in order (pure). */
export function stepsNotSucceeded(
  steps: readonly string[],
  children: readonly Pick<RunRecord, "workflow" | "status">[],
) {
  const ok = new Set(children.filter((c) => c.status === "succeeded").map((c) => c.workflow));
  return steps.filter((s) => !ok.has(moduleName(s)));
}

/**
 * Plans the resume of a plan run.
 * @throws PipelineRuntimeError `PIPELINE_PLAN_UNKNOWN` (not a plan), `PIPELINE_PLAN_ACTIVE` (still running)
 */
export async function planResume(store: Store, asked: string): Promise<PlanResume> {
  const via: string[] = [];
  let id = asked;
  for (let next = await store.kvGet(`${RESUMED_PREFIX}${id}`); next !== null && via.length < 100;) {
    via.push(next);
    id = next;
    next = await store.kvGet(`${RESUMED_PREFIX}${id}`);
  }
  const run = await store.getRun(id);
  if (!run || run.workflow !== PLAN_WORKFLOW)
    throw new PipelineRuntimeError(
      "PIPELINE_PLAN_UNKNOWN",
      `${id} is not a pipeline plan run${run ? ` (it is a run of ${run.workflow})` : ""}; pass the id printed by the failed sluice pipeline run (plan <id> failed: …)`,
    );
  if (run.status !== "succeeded" && run.status !== "failed" && run.status !== "cancelled")
    throw new PipelineRuntimeError(
      "PIPELINE_PLAN_ACTIVE",
      `plan ${id} is still ${run.status}; wait for it (sluice show ${id}) or cancel it (sluice cancel ${id}) before resuming`,
    );
  const original = decodeValue<PlanPayload>(run.payload);
  const children = await store.listRuns({ parentId: id, limit: 1_000 });
  const remaining = run.status === "succeeded" ? [] : stepsNotSucceeded(original.steps, children);
  let partition = original.partition;
  if (partition === undefined) {
    const resolved = (await store.getSteps(id)).find((s) => s.key === "plan:partition" && s.status === "done");
    const value = resolved ? decodeValue<string | null>(resolved.value) : null;
    if (typeof value === "string") partition = value;
  }
  const { skipDone: _skip, concurrency: _c, backfill: _b, ...rest } = original;
  return {
    plan: id,
    via,
    status: run.status,
    done: original.steps.filter((s) => !remaining.includes(s)),
    payload: { ...rest, steps: remaining, ...(partition !== undefined && { partition }) },
  };
}
