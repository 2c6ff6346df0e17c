import type { Duration } from "../core/duration.js";
import type { RunId } from "../core/ids.js";
import { decodeValue } from "../core/serde.js";
import { RunCancelledError, RunFailedError, RunNotFoundError } from "../sdk/errors.js";
import type { RunHandle, RunInfo } from "../sdk/types.js";
import { cancelReason } from "../store/run-errors.js";
import type { RunRecord } from "../store/types.js";

/** Converts a stored run to its public shape. */
function toRunInfo(r: RunRecord): RunInfo {
  return {
    id: r.id as RunId,
    workflow: r.task ? `${r.workflow}:${r.task}` : r.workflow,
    status: r.status,
    attempt: r.attempt,
    maxAttempts: r.maxAttempts,
    payload: decodeValue(r.payload),
    result: decodeValue(r.result),
    error: r.error,
    createdAt: new Date(r.createdAt),
    startedAt: r.startedAt === null ? null : new Date(r.startedAt),
    finishedAt: r.finishedAt === null ? null : new Date(r.finishedAt),
  };
}

/** What a handle needs from the engine. */
export interface HandleSource {
  waitForRun(id: string, timeout?: Duration): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | null>;
}

/** Builds a {@link RunHandle}. */
export function makeRunHandle<R>(source: HandleSource, id: string, deduplicated: boolean): RunHandle<R> {
  return {
    id: id as RunId,
    deduplicated,
    async result(options) {
      const run = await source.waitForRun(id, options?.timeout ?? options?.timeoutMs);
      if (run.status === "succeeded") return decodeValue<R>(run.result);
      if (run.status === "cancelled") throw new RunCancelledError(id, cancelReason(run.error));
      throw new RunFailedError(id, run.error ?? { name: "Error", message: "failed" });
    },
    async info() {
      const run = await source.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      return toRunInfo(run);
    },
  };
}
