/**
 * A project on disk: discovers its workflow modules, bundles each one, stores the
 * bundle by hash, imports it and registers its workflows with the engine pinned to
 * that hash. Reloading a changed file registers a new version; runs that already
 * started keep theirs (loaded again from the store after a restart).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Engine } from "../engine/engine.js";
import { clashingSibling, onceEachClash } from "./sibling-clash.js";
import { DuplicateWorkflowError } from "../sdk/errors.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { bundleModule, type BundleOptions } from "./bundle.js";
import { discoverWorkflowFiles } from "./discover.js";
import { bundleFileExists, importBundle, ModuleImportError } from "./import-bundle.js";
import { runnablesOf } from "./runnables.js";
import { MODULE_PATH_EXPORT } from "./function-table.js";
import { PythonProject } from "./python/project.js";

/** One loaded module. */
export interface LoadedModule {
  /** Path relative to the project root, with `/`. */
  file: string;
  hash: string;
  workflows: AnyWorkflow[];
}

/** The outcome of loading every module. */
export interface LoadReport {
  loaded: LoadedModule[];
  errors: Array<{ file: string; error: Error }>;
}

/**
 * Changes what a loaded module offers to run, given its project-relative path and exports
 * (pipelines wrap their member scripts this way). Applied to current and older versions.
 */
export type RunnableTransform = (
  file: string,
  exports: Record<string, unknown>,
  runnables: AnyWorkflow[],
) => AnyWorkflow[];

/** Loads a project's workflow modules into an engine. */
export class Project {
  private readonly namesByFile = new Map<string, string[]>();
  private readonly hashByFile = new Map<string, string>();
  private readonly transforms: RunnableTransform[] = [];
  /** The project's Python workflows and scripts (`f/**.py`), run on a Python host process. */
  readonly python: PythonProject;

  constructor(
    readonly root: string,
    readonly engine: Engine,
    env: NodeJS.ProcessEnv = process.env,
    /** How modules are bundled (`sluice deploy` bundles npm dependencies in). */
    private readonly bundleOptions: BundleOptions = {},
  ) {
    engine.registry.setLoader((hash) => this.loadVersion(hash));
    this.python = new PythonProject(
      root,
      engine,
      (name) => [...this.namesByFile].find(([, names]) => names.includes(name))?.[0] ?? null,
      env,
    );
  }

  /** Adds a transform applied to every module loaded from now on (see {@link RunnableTransform}). */
  addTransform(transform: RunnableTransform): void {
    this.transforms.push(transform);
  }

  private runnables(
    exports: Record<string, unknown>,
    file: string | null,
    source: string | null = null,
  ): AnyWorkflow[] {
    const found = runnablesOf(exports, file, source);
    return file === null ? found : this.transforms.reduce((defs, t) => t(file, exports, defs), found);
  }

  /** Module files this project loads. */
  files(): string[] {
    return discoverWorkflowFiles(this.root);
  }

  /** Loads every workflow module (TypeScript, then Python); a broken file is reported, the others still load. */
  loadAll(): Promise<LoadReport> {
    return this.engine.registry.loading(this.loadEach());
  }

  private async loadEach(): Promise<LoadReport> {
    const report: LoadReport = { loaded: [], errors: [] };
    for (const file of this.files()) {
      try {
        report.loaded.push(await this.loadFile(file));
      } catch (error) {
        report.errors.push({ file, error: error as Error });
      }
    }
    const py = await this.loadPython();
    report.loaded.push(...py.loaded);
    // x.ts and x.py clash from both sides: each loader refuses its own file; the clash is told once.
    report.errors = onceEachClash([...report.errors, ...py.errors]);
    return report;
  }

  /** (Re)loads the Python workflows and scripts (see {@link PythonProject.loadAll}). */
  loadPython(): Promise<LoadReport> {
    return this.engine.registry.loading(this.python.loadAll());
  }

  /** Bundles, stores, imports and registers one module (replacing its earlier version). */
  loadFile(file: string): Promise<LoadedModule> {
    return this.engine.registry.loading(this.bundleAndRegister(file));
  }

  private async bundleAndRegister(file: string): Promise<LoadedModule> {
    const bundle = await bundleModule(this.root, join(this.root, file), this.bundleOptions);
    await this.engine.store.putBundle(bundle.hash, bundle.code);
    let exports: Record<string, unknown>;
    try {
      exports = await importBundle(this.root, bundle.hash, bundle.code);
    } catch (err) {
      throw new ModuleImportError(file, err);
    }
    return this.registerModule(file, bundle.hash, exports);
  }

  /**
   * Imports and registers a module version that was already bundled (by the server that
   * started this worker), without bundling again: from `.sluice/bundles/<hash>.mjs` when
   * that file is there, else from the store.
   * @throws Error when the version is neither on disk nor stored
   */
  async loadBuilt(file: string, hash: string): Promise<LoadedModule> {
    const code = bundleFileExists(this.root, hash) ? null : await this.engine.store.getBundle(hash);
    if (code === null && !bundleFileExists(this.root, hash))
      throw new Error(`code version ${hash} of ${file} is not stored: start the worker without --from-build`);
    let exports: Record<string, unknown>;
    try {
      exports = await importBundle(this.root, hash, code ?? "");
    } catch (err) {
      throw new ModuleImportError(file, err);
    }
    return this.registerModule(file, hash, exports);
  }

  /** Each loaded module and the code version loaded for it. */
  builds(): Array<{ file: string; hash: string }> {
    return [...this.hashByFile].map(([file, hash]) => ({ file, hash })).sort((a, b) => a.file.localeCompare(b.file));
  }

  private async registerModule(file: string, hash: string, exports: Record<string, unknown>): Promise<LoadedModule> {
    const workflows = this.runnables(exports, file, await readFile(join(this.root, file), "utf8").catch(() => null));
    const before = this.namesByFile.get(file) ?? [];
    const now = workflows.map((w) => w.name);
    for (const wf of workflows) {
      const sibling = clashingSibling(this.root, file, wf.name);
      if (sibling) {
        // Neither file runs: the name's runs are refused until one of them is renamed.
        const err = new DuplicateWorkflowError(wf.name, `in ${file} and in ${sibling}`);
        this.engine.registry.refuse(wf.name, err);
        throw err;
      }
      if (this.engine.registry.refusal(wf.name) instanceof DuplicateWorkflowError) this.engine.registry.allow(wf.name);
      const owner = [...this.namesByFile].find(([f, names]) => f !== file && names.includes(wf.name));
      if (owner) throw new DuplicateWorkflowError(wf.name, `in ${file} and in ${owner[0]}`);
      const py = this.python.fileOf(wf.name);
      if (py) throw new DuplicateWorkflowError(wf.name, `in ${file} and in ${py}`);
    }
    const gone = before.filter((name) => !now.includes(name));
    if (gone.length) await this.engine.unregister(gone);
    await this.engine.register(workflows, { version: hash, source: file, replace: true });
    this.namesByFile.set(file, now);
    this.hashByFile.set(file, hash);
    return { file, hash, workflows };
  }

  /**
   * Forgets a deleted module's workflows: they are marked removed in the store, so
   * enqueueing them is refused (runs pinned to its versions can still finish).
   */
  async removeFile(file: string): Promise<string[]> {
    const names = this.namesByFile.get(file) ?? [];
    this.namesByFile.delete(file);
    this.hashByFile.delete(file);
    if (names.length) await this.engine.unregister(names);
    return names;
  }

  /**
   * Marks removed the published workflows whose module file no longer exists in the
   * project (deleted while nothing was watching). Returns their names.
   */
  async forgetDeletedFiles(): Promise<string[]> {
    const gone = (await this.engine.store.listWorkflows()).filter(
      (w) => w.source !== null && !this.engine.registry.get(w.name) && !existsSync(join(this.root, w.source)),
    );
    if (gone.length) await this.engine.store.removeWorkflows(gone.map((w) => w.name));
    return gone.map((w) => w.name);
  }

  /** Loads an older version from the store's bundles (a restart mid-run). */
  private async loadVersion(hash: string): Promise<Map<string, AnyWorkflow> | null> {
    const code = await this.engine.store.getBundle(hash);
    if (code === null) return null;
    const python = this.python.definitionsOf(hash, code);
    if (python) return new Map(python.map((w) => [w.name, w]));
    const exports = await importBundle(this.root, hash, code);
    const file = typeof exports[MODULE_PATH_EXPORT] === "string" ? (exports[MODULE_PATH_EXPORT] as string) : null;
    return new Map(this.runnables(exports, file).map((w) => [w.name, w]));
  }
}
