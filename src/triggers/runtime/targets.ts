/**
 * Enqueuing the run of a message on the engine: a runnable by name, or a pipeline step
 * through its pipeline host (the message body is its trigger object, so a
 * `// partitioned dynamic key="$.…"` step reads its partition from the message). The run id
 * comes from the message, so a redelivered message finds its run instead of making another.
 */
import type { Engine } from "../../engine/engine.js";
import type { PipelineHost } from "../../pipeline/runtime/host.js";
import { RunIdConflictError } from "../../sdk/errors.js";
import { TriggerError } from "../errors.js";
import type { MessageRun } from "../message.js";
import type { TriggerSpec } from "../spec.js";

/** The outcome of enqueuing one message's run. */
interface Enqueued {
  readonly id: string;
  /** The run existed already: the message was delivered before. */
  readonly deduplicated: boolean;
}

/** Enqueues the run of a message; resolves once it is durable. */
export type EnqueueMessage = (spec: TriggerSpec, run: MessageRun) => Promise<Enqueued>;

/** The engine's enqueue for triggers (`pipelines` for pipeline-step targets). */
export function engineEnqueue(engine: Engine, pipelines: PipelineHost | null): EnqueueMessage {
  return async (spec, run) => {
    try {
      if (spec.target.type === "pipeline") {
        if (!pipelines)
          throw new TriggerError(
            "TRIGGER_TARGET_UNKNOWN",
            `${spec.id} targets pipeline step ${spec.target.script}, but no pipeline runtime is attached`,
          );
        const h = await pipelines.runScript(spec.target.script, run.args, {
          id: run.runId,
          trigger: spec.kind,
          body: run.envelope.body,
        });
        return { id: h.id, deduplicated: h.deduplicated };
      }
      const h = await engine.enqueueRun(spec.target.name, run.args, { id: run.runId });
      return { id: h.id, deduplicated: h.deduplicated };
    } catch (err) {
      // The same id with another payload: the message was enqueued before (by an older mapping).
      if (err instanceof RunIdConflictError) return { id: run.runId, deduplicated: true };
      throw err;
    }
  };
}
