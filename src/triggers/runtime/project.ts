/**
 * The triggers of a running project (`sluice dev`, `sluice server`): its rows, read from the
 * pipeline catalog (which `sluice dev` rescans when `pipeline.json` changes) and `sluice.json`
 * (which `sluice dev` hands over again through {@link ProjectTriggers.reloadConfig} when the
 * file changes), run by a {@link TriggerSupervisor}. Nothing is loaded for a project without
 * triggers beyond this module; each kind's client loads when a trigger of that kind starts.
 */
import type { Engine } from "../../engine/engine.js";
import type { PipelineHost } from "../../pipeline/runtime/host.js";
import type { TriggerSpec } from "../spec.js";
import { projectTriggers, retainedTriggerIds } from "./load.js";
import { sweepRemovedTriggers } from "./postgres-uninstall.js";
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
  /** The project's folder (relative file options such as an email trigger's TLS certificate). */
  readonly root?: string;
  /** Tick of every trigger loop, ms (default 1000, or `SLUICE_TRIGGER_TICK_MS`). */
  readonly tickMs?: number;
}

/** The running triggers of a project. */
export interface ProjectTriggers {
  /** The current rows (for the API). */
  specs(): readonly TriggerSpec[];
  readonly supervisor: TriggerSupervisor;
  /**
   * Takes new `sluice.json` `"triggers"` (the file changed): added rows start, removed ones
   * stop (and lose their state and Postgres capture), changed ones restart. Resolves once the
   * loops follow. @throws TriggerError for a bad row; the running rows stay as they were
   */
  reloadConfig(configTriggers: unknown): Promise<readonly TriggerSpec[]>;
  stop(): Promise<void>;
}

/** Starts consuming the project's triggers (each on the server that leads it). */
export async function startProjectTriggers(options: ProjectTriggerOptions): Promise<ProjectTriggers> {
  let configTriggers = options.configTriggers;
  const folders = () => options.pipelines?.catalog().folders() ?? [];
  const read = (): TriggerSpec[] =>
    projectTriggers(
      folders(),
      typeof configTriggers === "function" ? (configTriggers as () => unknown)() : configTriggers,
    );
  let current = read();
  const tickMs = options.tickMs ?? (Number(options.env.SLUICE_TRIGGER_TICK_MS) || 1000);
  const supervisor = new TriggerSupervisor({
    store: options.engine.store,
    enqueue: engineEnqueue(options.engine, options.pipelines),
    env: options.env,
    log: options.log,
    tickMs,
    ...(options.root !== undefined && { root: options.root }),
    ...(options.pipelines && { objects: async () => (await options.pipelines!.assets()).objects }),
  });
  // Triggers whose rows are gone lose their state and their Postgres capture.
  const sweep = async (specs: readonly TriggerSpec[]) => {
    const keep = new Set([...specs.map((t) => t.id), ...retainedTriggerIds(folders())]);
    await sweepRemovedTriggers(options.engine.store, keep, options.env, options.log);
  };
  // One re-sync at a time, in order.
  let syncing: Promise<void> = Promise.resolve();
  const follow = (next: TriggerSpec[]): Promise<void> => {
    current = next;
    syncing = syncing
      .then(() => supervisor.sync(next))
      .then(() => sweep(next))
      .catch((err: unknown) => options.log(`triggers: ${String(err)}\n`));
    return syncing;
  };
  await follow(current);
  // Rows change when sluice dev rescans a pipeline folder: follow them.
  // Rows that stop parsing (a release's rows from a newer deployer) keep the running ones,
  // as a refused reload does; the reason is said once.
  let refused = "";
  const timer = setInterval(
    () => {
      let next: TriggerSpec[];
      try {
        next = read();
      } catch (err) {
        const why = (err as Error).message;
        if (why !== refused) options.log(`error: trigger rows not followed, the running triggers stay: ${why}\n`);
        refused = why;
        return;
      }
      refused = "";
      if (JSON.stringify(next) !== JSON.stringify(current)) void follow(next);
    },
    Math.max(1000, tickMs),
  );
  timer.unref();
  return {
    specs: () => current,
    supervisor,
    async reloadConfig(raw) {
      const next = projectTriggers(folders(), raw); // throws before anything is adopted
      configTriggers = raw;
      await follow(next);
      return current;
    },
    async stop() {
      clearInterval(timer);
      await syncing;
      await supervisor.stop();
    },
  };
}
