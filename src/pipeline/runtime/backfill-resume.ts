/**
 * Resuming a backfill that failed or was cancelled: a new backfill of the same partitions
 * and steps, without `--force`, recorded as resuming the old one, so only the partitions
 * and steps that did not succeed run again (the others are skipped as already done). Used
 * by `sluice pipeline backfill resume` and `POST /api/pipelines/backfills/:id/resume`.
 */
import { decodeValue } from "../../core/serde.js";
import type { Store } from "../../store/types.js";
import { backfillProgress, isFinal } from "./backfill-progress.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "./backfill-workflow.js";
import { refuseOverlappingBackfill } from "./backfill-overlap.js";
import { PipelineRuntimeError } from "./errors.js";

/** The payload of the backfill that resumes `id` (pure). */
function resumePayload(payload: BackfillPayload, id: string, concurrency?: number): BackfillPayload {
  return { ...payload, force: false, resumeOf: id, ...(concurrency !== undefined && { concurrency }) };
}

/**
 * Starts the backfill resuming `id`, through `enqueue`; returns its id.
 * @throws PipelineRuntimeError `PIPELINE_BACKFILL_UNKNOWN`, `PIPELINE_BACKFILL_ACTIVE` (still
 * running: a worker of the project goes on with it), `PIPELINE_BACKFILL_FINISHED` (it succeeded); `PIPELINE_BACKFILL_ACTIVE` too when another unfinished
 * backfill runs some of its partitions and steps
 */
export async function startBackfillResume(
  store: Store,
  enqueue: (workflow: string, payload: BackfillPayload) => Promise<{ id: string }>,
  id: string,
  concurrency?: number,
): Promise<string> {
  const progress = await backfillProgress(store, id);
  if (!isFinal(progress.status))
    throw new PipelineRuntimeError(
      "PIPELINE_BACKFILL_ACTIVE",
      `backfill ${id} is still ${progress.status}; any running sluice dev, server or worker of the project goes on with it (cancel it first to start over)`,
    );
  if (progress.status === "succeeded")
    throw new PipelineRuntimeError("PIPELINE_BACKFILL_FINISHED", `backfill ${id} already succeeded; nothing to resume`);
  const run = (await store.getRun(id))!;
  const next = resumePayload(decodeValue<BackfillPayload>(run.payload), id, concurrency);
  await refuseOverlappingBackfill(store, next);
  return (await enqueue(BACKFILL_WORKFLOW, next)).id;
}
