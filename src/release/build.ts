/**
 * Builds a release from a project folder (`sluice deploy`, `sluice push`): bundles every
 * TypeScript module with its npm dependencies, stores Python as it is (DuckDB SQL and Bash scripts,
 * pipeline members or plain, travel as the release's files and run from its tree), loads them all into a
 * throwaway engine (so the loader's checks run), validates the pipelines and the storage model,
 * and returns the manifest with the blobs to store. Nothing is written to the project's database.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  RELEASE_FORMAT,
  manifestProblems,
  sourceBlobKey,
  type ReleaseManifest,
  type ReleaseModule,
  type ReleasePipeline,
} from "../core/release.js";
import { createEngine } from "../engine/engine.js";
import type { CronSchedule } from "../core/cron.js";
import { checkStorageModel, StorageModelError } from "../engine/storage-model.js";
import { Project } from "../loader/project.js";
import { onceEachClash } from "../loader/sibling-clash.js";
import { formatDiagnostic } from "../pipeline/diagnostics.js";
import { cascadeEdges } from "../pipeline/lineage-graph.js";
import { attachPipelines } from "../pipeline/runtime/host.js";
import type { PipelineCatalog } from "../pipeline/runtime/catalog.js";
import { openSqliteStore } from "../store/sqlite/store.js";
import type { WorkflowInfo } from "../store/types.js";
import { collectReleaseFiles } from "./files.js";

/** Options of {@link buildRelease}. */
export interface BuildOptions {
  /** Servers the project is deployed to (the storage-model check). */
  servers: number;
  /** Whether the target database is shared across machines (Postgres). */
  sharedStore: boolean;
  /** The `assets` value of `sluice.json`. */
  assets?: unknown;
  /** The `triggers` value of `sluice.json` (rows already checked by the config parser). */
  triggers?: unknown;
  /** What is wrong with the schedule rows given the loaded runnables (the CLI's `scheduleRowProblems`). */
  scheduleProblems?: (runnables: readonly WorkflowInfo[]) => string[];
  /** The crons of `sluice.json` schedule rows (`triggers/schedule-rows.ts` `scheduleRowsOf`): runnable name → schedule. */
  schedules?: ReadonlyMap<string, CronSchedule>;
  env?: NodeJS.ProcessEnv;
}

/** A built release: its manifest, the blobs to store with it, and what makes it invalid. */
export interface BuiltRelease {
  manifest: ReleaseManifest;
  blobs: Array<{ hash: string; code: string }>;
  /** Empty when it may be published. */
  problems: string[];
}

/** Builds and validates the release of the project at `root`. */
export async function buildRelease(root: string, options: BuildOptions): Promise<BuiltRelease> {
  const files = collectReleaseFiles(root);
  const problems: string[] = [];
  const store = openSqliteStore({ path: ":memory:" });
  const engine = createEngine({ store, worker: false, scheduler: false, captureConsole: false });
  const loader = new Project(root, engine, options.env ?? process.env, { dependencies: "bundle" });
  const pipelines = attachPipelines(loader, {
    assets: options.assets,
    env: options.env,
    freshness: false,
    lakeSweep: false,
  });
  try {
    const report = await loader.loadAll();
    await pipelines.start();
    // a clash of x.ts and x.sql is told by both loaders: once here
    for (const e of onceEachClash([...report.errors, ...pipelines.plainScripts.errors()]))
      problems.push(e.error.message);
    problems.push(...pipelineProblems(pipelines.catalog()));
    // sluice.json schedule rows give their runnables a cron, as on a folder server.
    engine.setConfiguredSchedules(options.schedules ?? new Map());
    const infos = engine.publishedInfos();
    problems.push(...(options.scheduleProblems?.(infos) ?? []));
    try {
      checkStorageModel({ servers: options.servers, sharedStore: options.sharedStore, workflows: infos });
    } catch (err) {
      if (!(err instanceof StorageModelError)) throw err;
      problems.push(err.message);
    }
    const modules: ReleaseModule[] = report.loaded.map((m) => ({
      path: m.file,
      language: m.file.endsWith(".py") ? "python" : "typescript",
      bundle: m.hash,
      workflows: m.workflows.map((w) => w.name).sort(),
    }));
    const blobs: BuiltRelease["blobs"] = files.map((f) => ({ hash: sourceBlobKey(f.hash), code: f.text }));
    for (const m of modules) {
      const code = await store.getBundle(m.bundle);
      if (code === null) problems.push(`${m.path}: its code version ${m.bundle} was not stored by the loader`);
      else blobs.push({ hash: m.bundle, code });
    }
    const manifest: ReleaseManifest = {
      format: RELEASE_FORMAT,
      files: files.map(({ path, hash, bytes }) => ({ path, hash, bytes })),
      modules: modules.filter((m) => m.workflows.length > 0),
      workflows: infos
        .map((w) => ({ ...w, params: w.params ?? null, local: w.local ?? false }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      pipelines: pipelineGraphs(root, pipelines.catalog()),
      triggers: configTriggerRows(options.triggers),
    };
    problems.push(...manifestProblems(manifest));
    return { manifest, blobs, problems };
  } finally {
    await pipelines.stop();
    loader.python.close();
    await engine.stop({ drain: 0 });
    await store.close();
  }
}

function pipelineProblems(catalog: PipelineCatalog): string[] {
  return catalog
    .folders()
    .flatMap((f) =>
      f.diagnostics
        .filter((d) => d.severity === "error")
        .map((d) => formatDiagnostic({ ...d, script: d.script ?? (f.folder || ".") })),
    );
}

function pipelineGraphs(root: string, catalog: PipelineCatalog): ReleasePipeline[] {
  return catalog.folders().map((f) => ({
    folder: f.folder,
    members: f.members.map((m) => m.path),
    edges: cascadeEdges(f.analysis.graph).map((e) => ({ from: e.from, to: e.to })),
    triggers: triggerRows(join(root, f.folder, "pipeline.json")),
  }));
}

/** `sluice.json` trigger rows by name (rows without a string name are left to the config parser's error). */
function configTriggerRows(raw: unknown): Record<string, unknown> {
  if (!Array.isArray(raw)) return {};
  const rows: Record<string, unknown> = {};
  for (const row of raw as unknown[])
    if (row && typeof row === "object" && typeof (row as { name?: unknown }).name === "string")
      rows[(row as { name: string }).name] = row;
  return rows;
}

function triggerRows(file: string): Record<string, unknown> {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as { triggers?: Record<string, unknown> };
    return value && typeof value.triggers === "object" && value.triggers !== null ? value.triggers : {};
  } catch {
    return {};
  }
}
