/**
 * The triggers of a running project (`sluice dev`, `sluice server`): its rows, read from the
 * pipeline catalog (which `sluice dev` rescans when `pipeline.json` changes) and `sluice.json`,
 * run by a {@link TriggerSupervisor}. Nothing is loaded for a project without triggers
 * beyond this module; each kind's client loads when a trigger of that kind starts.
 */
import type { Engine } from "../../engine/engine.js";
import type { PipelineHost } from "../../pipeline/runtime/host.js";
import type { TriggerSpec } from "../spec.js";
import { projectTriggers } from "./load.js";
import { TriggerSupervisor } from "./supervisor.js";
import { engineEnqueue } from "./targets.js";

/** Options of {@link startProjectTriggers}. */
export interface ProjectTriggerOptions {
  readonly engine: Engine;
  readonly pipelines: PipelineHost | null;
  /**
   * `sluice.json` `"triggers"`, or a function returning them when they can change while the
   * server runs (a `--release` server: the current release's rows).
   */
  readonly configTriggers: unknown;
  readonly env: Record<string, string | undefined>;
  readonly log: (line: string) => void;
  /** Tick of every trigger loop, ms (default 1000, or `SLUICE_TRIGGER_TICK_MS`). */
  readonly tickMs?: number;
}

/** The running triggers of a project. */
export interface ProjectTriggers {
  /** The current rows (for the API). */
  specs(): readonly TriggerSpec[];
  readonly supervisor: TriggerSupervisor;
  stop(): Promise<void>;
}

/** Starts consuming the project's triggers (each on the server that leads it). */
export async function startProjectTriggers(options: ProjectTriggerOptions): Promise<ProjectTriggers> {
  const read = (): TriggerSpec[] =>
    projectTriggers(
      options.pipelines?.catalog().folders() ?? [],
      typeof options.configTriggers === "function"
        ? (options.configTriggers as () => unknown)()
        : options.configTriggers,
    );
  let current = read();
  const tickMs = options.tickMs ?? (Number(options.env.SLUICE_TRIGGER_TICK_MS) || 1000);
  const supervisor = new TriggerSupervisor({
    store: options.engine.store,
    enqueue: engineEnqueue(options.engine, options.pipelines),
    env: options.env,
    log: options.log,
    tickMs,
    ...(options.pipelines && { objects: async () => (await options.pipelines!.assets()).objects }),
  });
  await supervisor.sync(current);
  // Rows change when sluice dev rescans a pipeline folder: follow them.
  const follow = setInterval(
    () => {
      const next = read();
      if (JSON.stringify(next) === JSON.stringify(current)) return;
      current = next;
      void supervisor.sync(current).catch((err: unknown) => options.log(`triggers: ${String(err)}\n`));
    },
    Math.max(1000, tickMs),
  );
  follow.unref();
  return {
    specs: () => current,
    supervisor,
    async stop() {
      clearInterval(follow);
      await supervisor.stop();
    },
  };
}
