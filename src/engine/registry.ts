import type { AnyWorkflow } from "../sdk/workflow.js";
import { DuplicateWorkflowError } from "../sdk/errors.js";
import type { WorkflowInfo } from "../store/types.js";

/** One registered workflow: its definition and the code version it came from. */
export interface RegisteredWorkflow {
  def: AnyWorkflow;
  /** Bundle hash, or null for definitions registered in-process. */
  version: string | null;
  /** Source file relative to the project root, if loaded from a file. */
  source: string | null;
}

/** Loads the workflows of an older code version by its hash (from the store's bundles). */
export type VersionLoader = (version: string) => Promise<Map<string, AnyWorkflow> | null>;

/**
 * The workflows this process can run: the current definition of each name, plus
 * every version loaded so far, so a run finishes on the code it started with.
 */
export class Registry {
  private readonly current = new Map<string, RegisteredWorkflow>();
  private readonly versions = new Map<string, Map<string, AnyWorkflow>>();
  /** Names removed after being registered: their runs already queued or started still finish on their last code. */
  private readonly retired = new Set<string>();
  /** Names whose new runs are refused, with the error to throw (see {@link refuse}). */
  private readonly refused = new Map<string, Error>();
  private loader: VersionLoader | null = null;
  /** Loads of modules in progress (see {@link loading}). */
  private readonly loads = new Set<Promise<unknown>>();
  private namesCache: string[] | null = null;
  private claimableCache: string[] | null = null;

  /** Registers (or, with `replace`, updates) a workflow. */
  add(entry: RegisteredWorkflow, replace = false): void {
    const existing = this.current.get(entry.def.name);
    if (existing && !replace && existing.def !== entry.def) {
      throw new DuplicateWorkflowError(
        entry.def.name,
        `${existing.source ?? "in-process"} and ${entry.source ?? "in-process"}`,
      );
    }
    this.current.set(entry.def.name, entry);
    this.retired.delete(entry.def.name);
    if (entry.version) {
      let v = this.versions.get(entry.version);
      if (!v) this.versions.set(entry.version, (v = new Map()));
      v.set(entry.def.name, entry.def);
    }
    this.namesCache = this.claimableCache = null;
  }

  /**
   * Forgets a workflow name (its file was deleted): new runs are refused, while runs
   * already queued or started keep being claimed ({@link claimable}) and run on the last
   * code version they are pinned to.
   */
  remove(name: string): void {
    const had = this.current.get(name);
    this.current.delete(name);
    if (had?.version) this.retired.add(name);
    this.namesCache = this.claimableCache = null;
  }

  /**
   * Refuses new runs of `name` with `error` until {@link allow} (a pipeline script that is not
   * loaded, e.g. two files that would both run as `name`): enqueues, triggers and cron ticks
   * throw it. What is registered under `name` stays as it is: the caller removes it.
   */
  refuse(name: string, error: Error): void {
    this.refused.set(name, error);
  }

  /** Accepts new runs of `name` again (see {@link refuse}). */
  allow(name: string): void {
    this.refused.delete(name);
  }

  /** The error new runs of `name` are refused with, if they are. */
  refusal(name: string): Error | undefined {
    return this.refused.get(name);
  }

  /** Sets how unknown versions are loaded. */
  setLoader(loader: VersionLoader): void {
    this.loader = loader;
  }

  /**
   * Marks a load of modules (a project's, or a file reloaded) in progress until `work` settles:
   * a name it will register is not known yet, so a check of it waits ({@link loaded}).
   */
  loading<T>(work: Promise<T>): Promise<T> {
    this.loads.add(work);
    const done = () => void this.loads.delete(work);
    work.then(done, done);
    return work;
  }

  /** Resolves once no load of modules is in progress. */
  async loaded(): Promise<void> {
    while (this.loads.size > 0) await Promise.allSettled([...this.loads]);
  }

  /** The current registration of `name`. */
  get(name: string): RegisteredWorkflow | undefined {
    return this.current.get(name);
  }

  /** Names this process can run. */
  names(): string[] {
    return (this.namesCache ??= [...this.current.keys()].sort());
  }

  /** Names whose runs this process claims: the current ones plus removed ones with a code version. */
  claimable(): string[] {
    return (this.claimableCache ??= [...new Set([...this.current.keys(), ...this.retired])].sort());
  }

  /** All current registrations. */
  all(): RegisteredWorkflow[] {
    return [...this.current.values()];
  }

  /**
   * The definition for a run: its pinned version when it has one (loading it if
   * needed), else the current one. Undefined when that version is gone.
   */
  async resolve(name: string, version: string | null): Promise<AnyWorkflow | undefined> {
    const loaded = this.resolveLoaded(name, version);
    return loaded === null ? this.loadVersion(version!, name) : loaded;
  }

  /**
   * The definition for a run when no loading is needed (no pinned version, or one already
   * loaded): the worker's hot path, without an `await`. Null when {@link resolve} must load it.
   */
  resolveLoaded(name: string, version: string | null): AnyWorkflow | undefined | null {
    if (version === null) return this.current.get(name)?.def;
    const v = this.versions.get(version);
    return v ? v.get(name) : this.loader ? null : undefined;
  }

  /** Loads code version `version` (kept for later runs) and answers `name` from it. */
  private async loadVersion(version: string, name: string): Promise<AnyWorkflow | undefined> {
    const loaded = await this.loader!(version);
    if (loaded) this.versions.set(version, loaded);
    return loaded?.get(name);
  }

  /** What to publish to the store about the current registrations. */
  infos(): WorkflowInfo[] {
    return this.all().map(({ def, version, source }) => ({
      name: def.name,
      version,
      queue: def.queue,
      maxAttempts: def.maxAttempts,
      backoff: def.backoff,
      source,
      schedule: def.schedule,
      local: def.local,
      params: def.params,
    }));
  }
}
