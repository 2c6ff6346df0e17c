/**
 * A pipeline project in a temp folder on a real SQLite file, with an engine (worker,
 * no scheduler unless asked), the project loader and the pipeline runtime attached.
 */
import { join } from "node:path";
import { createEngine, type Engine } from "../../src/engine/engine.js";
import { Project } from "../../src/loader/project.js";
import { attachPipelines, type PipelineHost, type PipelineOptions } from "../../src/pipeline/runtime/index.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { RunRecord, Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { delay } from "../helpers/tmp.js";

/** A running pipeline project. */
export interface PipelineProject {
  root: string;
  store: Store;
  engine: Engine;
  project: Project;
  pipelines: PipelineHost;
  /** Resolves once no run is pending, running or waiting (for `quietMs`). */
  settle(options?: { timeoutMs?: number; quietMs?: number }): Promise<void>;
  /** Runs of a script (runnable name), oldest first. */
  runsOf(name: string): Promise<RunRecord[]>;
  close(): Promise<void>;
}

/** Starts a project with `files`. */
export async function startPipelines(
  files: Record<string, string>,
  options: PipelineOptions & { store?: Store; scheduler?: boolean; root?: string; allowLoadErrors?: boolean } = {},
): Promise<PipelineProject> {
  const root = options.root ?? makeProject(files, "sluice-pipe-");
  const store = options.store ?? openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  const engine = createEngine({
    store,
    scheduler: options.scheduler ? { tickMs: 100 } : false,
    worker: { pollMs: 50 },
  });
  const project = new Project(root, engine);
  const pipelines = attachPipelines(project, { freshness: false, lakeSweep: false, ...options });
  await engine.start();
  const report = await project.loadAll();
  if (report.errors.length && !options.allowLoadErrors)
    throw new Error(`load failed: ${report.errors.map((e) => `${e.file}: ${e.error.message}`).join("\n")}`);
  await pipelines.start();
  return {
    root,
    store,
    engine,
    project,
    pipelines,
    async settle({ timeoutMs = 20_000, quietMs = 150 } = {}) {
      const end = Date.now() + timeoutMs;
      let quietSince: number | null = null;
      for (;;) {
        const busy = await store.countRuns({ status: ["pending", "running", "waiting"] });
        if (busy === 0) {
          quietSince ??= Date.now();
          if (Date.now() - quietSince >= quietMs) return;
        } else quietSince = null;
        if (Date.now() > end) {
          const left = await store.listRuns({ status: ["pending", "running", "waiting"], limit: 20 });
          throw new Error(
            `runs still busy after ${timeoutMs} ms: ${left.map((r) => `${r.workflow}:${r.status}`).join(", ")}`,
          );
        }
        await delay(25);
      }
    },
    async runsOf(name) {
      return (await store.listRuns({ workflow: name, limit: 1000 })).reverse();
    },
    async close() {
      await pipelines.stop();
      await engine.stop({ drainMs: 2_000 });
      if (!options.store) await store.close();
    },
  };
}
