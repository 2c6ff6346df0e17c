/**
 * The pipeline runtime attached to a project loader and its engine: finds the pipelines
 * on disk, wraps TypeScript members loaded by the project, registers Python, Bash and
 * DuckDB SQL members (and the project's plain SQL and Bash scripts, `plain-scripts.ts`),
 * runs the cascade, the native triggers (schedule rows become the script's cron; webhooks
 * go through {@link PipelineHost.webhook}) and the freshness watchdog. `sluice dev`, `sluice worker` and `sluice server` attach one; so can an
 * embedding application:
 *
 * ```ts
 * const project = new Project(root, engine);
 * const pipelines = attachPipelines(project);
 * await engine.start();
 * await project.loadAll();
 * await pipelines.start();
 * ```
 */
import { startCascadeSpan, traceDecision, withSpan } from "../../worker/tracing.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AssetConfig } from "../../assets/config.js";
import { resolveAssetConfig } from "../../assets/config.js";
import { type AssetHost, openAssetHost } from "../../assets/host.js";
import type { CronSchedule } from "../../core/cron.js";
import { checkArguments, type ParamSpec } from "../../core/params.js";
import type { Engine } from "../../engine/engine.js";
import type { Project } from "../../loader/project.js";
import { RunIdConflictError } from "../../sdk/errors.js";
import type { RunHandle } from "../../sdk/types.js";
import { isWacWorkflow } from "../../sdk/windmill/workflow.js";
import type { AnyWorkflow } from "../../sdk/workflow.js";
import type { Store } from "../../store/types.js";
import { everySyntaxHint, hintPrefix } from "../language.js";
import { PipelineCatalog, type MemberScript } from "./catalog.js";
import type { DispatchDecision } from "./decisions.js";
import { pipelineDefinition, type PipelineServices, type ScriptRunner } from "./definition.js";
import { dispatchCascade, type Enqueue, type ProducerRun } from "./dispatch.js";
import { PipelineRuntimeError, PipelineScriptNotLoadedError } from "./errors.js";
import { FreshnessWatchdog } from "./freshness.js";
import type { LakeSweeper, LakeSweepOptions } from "./lake-sweeper.js";
import { buildPayload, type RunMeta } from "./meta.js";
import { PlainScripts } from "./plain-scripts.js";
import { planWorkflow } from "./plan-workflow.js";
import { backfillWorkflow } from "./backfill-workflow.js";
import { renderText } from "./render.js";
import { PythonScriptParams } from "./script-params.js";
import { storedColumns } from "./reserved-column.js";
import { typescriptRunner } from "./runners/typescript.js";
import { assetSdkFor } from "./sdk-host.js";
import type { PipelineRunContext } from "./run-context.js";
import type { SubprocessSettings } from "./runners/subprocess.js";
import type { PipelineWatcher } from "./watch.js";

/** Options of {@link attachPipelines}. */
export interface PipelineOptions {
  /** The `assets` value of `sluice.json` (object store, data tables, volumes). */
  assets?: unknown;
  /** Environment for `SLUICE_S3_*` overrides. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Where load summaries and diagnostics go (default: nowhere). */
  log?: (line: string) => void;
  /**
   * Reload pipelines (and plain SQL/Bash scripts) when Python/Bash/SQL scripts or `pipeline.json`
   * change (dev). Default false.
   */
  watch?: boolean;
  /** The freshness watchdog: `false` turns it off; default tick 30 s. */
  freshness?: false | { tickMs?: number };
  /**
   * The automatic orphan sweep of the project's lakes (`lake-sweeper.ts`): `false` turns it off
   * (workers, one-shot commands); default on, each lake about once an hour.
   */
  lakeSweep?: false | LakeSweepOptions;
  /** Interpreters of Python and Bash scripts. */
  subprocess?: Partial<SubprocessSettings>;
  /**
   * Register the project's plain DuckDB SQL and Bash scripts (`plain-scripts.ts`). Default true;
   * false for a process that runs pipeline work only (`sluice pipeline run`'s worker).
   */
  plainScripts?: boolean;
}

/** Attach the pipeline runtime to a project loader (before `project.loadAll()`). */
export function attachPipelines(project: Project, options: PipelineOptions = {}): PipelineHost {
  return new PipelineHost(project, options);
}

/** Options of {@link PipelineHost.runScript}. */
export interface RunScriptOptions {
  /** Dispatch the downstream when the run succeeds (default true). */
  cascade?: boolean;
  /** An explicit partition (wins over the script's own resolution). */
  partition?: string;
  /** Run id (deduplicates). */
  id?: string;
  /** How the run was started (recorded in its metadata). Default `manual`. */
  trigger?: RunMeta["trigger"];
  /** The triggering object (e.g. a webhook body). */
  body?: unknown;
  /** Who started it (the run's `createdBy`: a person through the UI or CLI); unset for triggers. */
  createdBy?: string;
}

/** The pipeline runtime of one project in one process. */
export class PipelineHost implements PipelineServices {
  readonly engine: Engine;
  readonly store: Store;
  readonly root: string;
  readonly config: AssetConfig;
  private current: PipelineCatalog;
  private readonly assetsReady: Promise<AssetHost>;
  private readonly registered = new Set<string>();
  /** Names of members that are not loaded, whose runs the engine refuses ({@link syncRefusals}). */
  private readonly refused = new Set<string>();
  private watchdog: FreshnessWatchdog | null = null;
  private sweeper: LakeSweeper | null = null;
  private watcher: PipelineWatcher | null = null;
  private readonly subprocess: Partial<SubprocessSettings>;
  private started = false;
  private planRegistered = false;
  /** The plan and backfill workflows' registration started by the constructor (awaited by {@link start}). */
  private readonly planReady: Promise<void>;
  /** The script runners (and with them the Python bridge) have been loaded. */
  private runnersLoaded = false;
  private reported = new Set<string>();
  /** The storage once opened (SDK calls made before get none). */
  private openedAssets: AssetHost | null = null;
  /** The context of each running pipeline run of this host, by execution. */
  private readonly runs = new WeakMap<object, PipelineRunContext>();
  /** Removes this host's asset storage from its engine ({@link stop}). */
  private readonly detachAssetSdk: () => void;
  /** The parameters of Python members, checked at enqueue. */
  private readonly scriptParams: PythonScriptParams;
  /** The project's plain DuckDB SQL and Bash scripts (not pipeline members), registered with the members. */
  readonly plainScripts: PlainScripts;

  constructor(
    readonly project: Project,
    private readonly options: PipelineOptions,
  ) {
    this.engine = project.engine;
    this.store = this.engine.store;
    this.root = project.root;
    this.subprocess = options.subprocess ?? {};
    // The interpreter the runner starts the scripts with (`runners/subprocess.ts`).
    this.scriptParams = new PythonScriptParams(this.subprocess.python ?? "python3", this.root);
    this.config = resolveAssetConfig(this.root, options.assets, options.env ?? process.env);
    this.current = PipelineCatalog.scan(this.root);
    this.plainScripts = new PlainScripts(this, (line) => this.say(line));
    this.assetsReady = openAssetHost(this.config, this.store).then((host) => (this.openedAssets = host));
    this.assetsReady.catch(() => {});
    // The SDK's asset helpers called by this engine's code reach this host's storage through the engine.
    this.detachAssetSdk = this.engine.provideAssetSdk(() => assetSdkFor(this.openedAssets, this.runs));
    project.addTransform((file, exports, defs) => this.transform(file, exports, defs));
    // Awaited by start(), which reports its failure; until then nothing may go unhandled.
    this.planReady = this.ensurePlanWorkflow();
    this.planReady.catch(() => {});
  }

  /** The pipelines as last scanned. */
  catalog(): PipelineCatalog {
    return this.current;
  }

  /** The project's asset storage. */
  assets(): Promise<AssetHost> {
    return this.assetsReady;
  }

  /** The cron of a member's schedule row, when it also has `// on schedule`. */
  scheduleOf(member: MemberScript): CronSchedule | undefined {
    const marked = member.analyzed.annotations.nativeTriggers.some((t) => t.kind === "schedule");
    return marked ? member.triggers.schedule : undefined;
  }

  /** Enqueue for the dispatcher: a conflicting id means "already dispatched". */
  readonly enqueue: Enqueue = async (workflow, payload, options) => {
    try {
      const h = await this.engine.enqueueRun(workflow, payload, {
        id: options.id,
        ...(options.retries !== undefined && { retries: options.retries }),
        ...(options.runAt !== undefined && { runAt: options.runAt }),
      });
      return { id: h.id, deduplicated: h.deduplicated };
    } catch (err) {
      if (err instanceof RunIdConflictError) return { id: options.id, deduplicated: true };
      throw err;
    }
  };

  /** Counts decisions in this engine's metrics (`sluice_cascade_decisions_total`). */
  recordDecisions(decisions: readonly DispatchDecision[]): void {
    this.engine.metrics.decided(decisions);
  }

  /** Keeps the context of a running pipeline run of this host. */
  bindRun(exec: object, ctx: PipelineRunContext): void {
    this.runs.set(exec, ctx);
  }

  /** Runs the cascade for a finished producer run. */
  async dispatch(producer: ProducerRun): Promise<DispatchDecision[]> {
    // One `cascade` span per producer run; the runs it enqueues and its decisions hang under it.
    const span = startCascadeSpan(producer.member.path, producer.runId);
    let decisions: DispatchDecision[];
    try {
      decisions = await withSpan(span, () =>
        dispatchCascade(
          { store: this.store, catalog: this.current, enqueue: this.enqueue, now: () => Date.now() },
          producer,
        ),
      );
      for (const d of decisions) traceDecision(span, d);
    } finally {
      span.end();
    }
    this.recordDecisions(decisions);
    for (const d of decisions) {
      this.say(
        `⇢ ${producer.member.name} → ${d.subscriber}: ${d.outcome}${d.partition ? ` [${d.partition}]` : ""}${d.run ? ` ${d.run}` : ""}${d.reason ? ` (${d.reason})` : ""}`,
      );
    }
    return decisions;
  }

  /** A member by path or runnable name. @throws PipelineRuntimeError `PIPELINE_SCRIPT_UNKNOWN` */
  member(ref: string): MemberScript {
    const clean = ref.replace(/^\/+/, "");
    const m =
      this.current.member(clean) ??
      this.current.members().find((x) => x.name === clean.replace(/\.(m?[jt]s|py|sh|sql)$/, ""));
    if (!m) {
      const known = this.current.members().map((x) => x.name);
      throw new PipelineRuntimeError(
        "PIPELINE_SCRIPT_UNKNOWN",
        `${JSON.stringify(ref)} is not a pipeline script of this project; known: ${known.join(", ") || `none (mark scripts with ${everySyntaxHint("pipeline")})`}`,
      );
    }
    return m;
  }

  /** Starts a run of a member script (the native API; `cascade: false` is the native `_wmill_skip_asset_dispatch`). */
  async runScript(
    ref: string,
    args: Record<string, unknown> = {},
    options: RunScriptOptions = {},
  ): Promise<RunHandle<unknown>> {
    const m = this.member(ref);
    const meta: Partial<RunMeta> & { trigger: RunMeta["trigger"] } = {
      trigger: options.trigger ?? "manual",
      depth: 0,
      ...(options.cascade === false && { cascade: false, cascadeOffReason: "cascade: false" }),
      ...(options.body !== undefined && { body: options.body }),
    };
    const payload = buildPayload(
      { ...args, ...(options.partition !== undefined && { partition: options.partition }) },
      meta,
    );
    return this.engine.enqueueRun(m.name, payload, {
      ...(options.id && { id: options.id }),
      ...(options.createdBy !== undefined && { createdBy: options.createdBy }),
    });
  }

  /**
   * Runs a script from its webhook with the request body as its arguments (and trigger
   * object). Refused unless the script has `// on webhook` and a webhook row.
   * @throws PipelineRuntimeError `PIPELINE_SCRIPT_UNKNOWN`, `PIPELINE_TRIGGER_NOT_CONFIGURED`
   */
  async webhook(ref: string, body: unknown): Promise<RunHandle<unknown>> {
    const m = this.member(ref);
    const marked = m.analyzed.annotations.nativeTriggers.some((t) => t.kind === "webhook");
    const loaded = this.current.notLoaded(m) === undefined;
    if (!marked || !m.triggers.webhook || !loaded) {
      throw new PipelineRuntimeError(
        "PIPELINE_TRIGGER_NOT_CONFIGURED",
        `${m.path} has no webhook: it needs a \`${hintPrefix(m.language)} on webhook\` line and {"triggers": {"${m.name.split("/").pop()}": {"webhook": true}}} in ${m.folder ? `${m.folder}/` : ""}pipeline.json${loaded ? "" : ", and the script must load without errors"}`,
      );
    }
    const args =
      body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    return this.runScript(m.path, args, { trigger: "webhook", body });
  }

  /** Re-reads the pipelines from disk and re-registers what changed. */
  async reload(): Promise<void> {
    const before = this.current;
    this.current = await PipelineCatalog.scan(this.root, this.current).checked(storedColumns(this.store));
    this.reported.clear();
    await this.ensurePlanWorkflow();
    await this.registerScripts();
    if (this.options.plainScripts !== false) await this.plainScripts.sync();
    for (const m of this.current.members()) {
      const old = before.member(m.path);
      const tsLike = m.language === "typescript" || m.language === "javascript";
      if (tsLike && old && JSON.stringify(old.triggers) !== JSON.stringify(m.triggers))
        await this.project.loadFile(m.path).catch((err) => this.say(`error: ${(err as Error).message}`));
    }
    if (this.started) this.summary();
  }

  /** Registers non-TypeScript members, prints the pipelines, starts the watchdog, the lake sweep (and the watcher). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.planReady;
    await this.assetsReady;
    this.current = await this.current.checked(storedColumns(this.store));
    await this.registerScripts();
    if (this.options.plainScripts !== false) await this.plainScripts.sync();
    this.summary();
    if (this.options.freshness !== false) {
      this.watchdog = new FreshnessWatchdog(this, this.options.freshness?.tickMs ?? 30_000);
      this.watchdog.start();
    }
    const sweep = this.options.lakeSweep;
    if (sweep !== false) {
      const log = sweep?.log;
      // The lake modules load only where the sweep runs (dev, server): a lane worker never sweeps.
      const { LakeSweeper } = await import("./lake-sweeper.js");
      this.sweeper = new LakeSweeper(
        this.store,
        () => this.assets(),
        sweep ?? {},
        (line) => (log ? log(`${line}\n`) : this.say(line)),
      );
      this.sweeper.start();
    }
    if (this.options.watch) {
      // The file watcher (chokidar) loads only in dev: a worker never watches.
      const { watchPipelines } = await import("./watch.js");
      this.watcher = watchPipelines(
        this.root,
        () => this.reload(),
        (e) => this.say(`error: ${e.message}`),
      );
    }
  }

  /** Resolves once the file watcher (option `watch`) has finished its initial scan. */
  async whenWatching(): Promise<void> {
    await this.watcher?.ready;
  }

  /** Stops the watchdog and the watcher, and releases the asset storage. */
  async stop(): Promise<void> {
    await this.watchdog?.stop();
    await this.sweeper?.stop();
    await this.watcher?.close();
    await this.plainScripts.stop();
    // Only a Python or Bash runner starts the bridge, and those load with the runners.
    if (this.runnersLoaded) {
      const { stopBridge } = await import("./runners/bridge.js");
      await stopBridge(this);
    }
    this.detachAssetSdk();
    // the lakes runs kept open (after the runs in flight end)
    await this.openedAssets?.shared?.close();
  }

  /** Runner settings for subprocess scripts. */
  subprocessSettings(): Partial<SubprocessSettings> {
    return this.subprocess;
  }

  /** Registers the plan workflow once the project has a pipeline (a project without one sees nothing new). */
  private async ensurePlanWorkflow(): Promise<void> {
    if (this.planRegistered || this.current.folders().length === 0) return;
    this.planRegistered = true;
    await this.engine.register([planWorkflow(this), backfillWorkflow(this)], { replace: true });
  }

  private say(line: string): void {
    this.options.log?.(`${line}\n`);
  }

  private summary(): void {
    for (const f of this.current.folders()) this.say(renderText(f));
  }

  private definition(
    member: MemberScript,
    runner: ScriptRunner,
    original?: AnyWorkflow,
    params?: ParamSpec | null,
  ): AnyWorkflow {
    return pipelineDefinition(this, member, runner, original?.module ?? undefined, params);
  }

  /**
   * Checks arguments given to every step of a plan or backfill (`--args`) as an enqueue of each
   * step checks its own, before anything is stored.
   * @throws InvalidArgumentsError naming the step, the parameter, its hint and the value
   */
  checkStepArguments(steps: readonly string[], args: Record<string, unknown>): void {
    for (const step of steps) {
      const name = this.member(step).name;
      const params = this.engine.registry.get(name)?.def.params;
      if (params) checkArguments(name, params, args);
    }
  }

  /**
   * Refuses new runs under the names of members that are not loaded (`Registry.refuse`), so that
   * neither of two files that would both run as one name runs; names loaded again are accepted.
   */
  private syncRefusals(): void {
    const now = new Map<string, string>();
    for (const f of this.current.folders())
      for (const m of f.members) {
        const reason = f.broken.get(m.path);
        if (reason !== undefined && !now.has(m.name)) now.set(m.name, reason);
      }
    for (const name of this.refused) if (!now.has(name)) this.engine.registry.allow(name);
    this.refused.clear();
    for (const [name, reason] of now) {
      this.engine.registry.refuse(name, new PipelineScriptNotLoadedError(name, reason));
      this.refused.add(name);
    }
  }

  /** Registers (or replaces) the Python, Bash and SQL members of loadable folders. */
  private async registerScripts(): Promise<void> {
    this.syncRefusals();
    const defs: AnyWorkflow[] = [];
    const now = new Set<string>();
    const scripts = this.current
      .folders()
      .flatMap((f) => f.members.filter((m) => !f.broken.has(m.path)))
      .filter((m) => m.language !== "typescript" && m.language !== "javascript");
    // The SQL (DuckDB, lakes) and subprocess runners load only for a project that has such scripts.
    if (scripts.length) {
      const { runnerFor } = await import("./runners/index.js");
      this.runnersLoaded = true;
      const params = await this.scriptParams.specs(scripts);
      for (const m of scripts) {
        const runner = runnerFor(this, m);
        if (!runner) continue;
        defs.push(this.definition(m, runner, undefined, params.get(m.path)));
        now.add(m.name);
      }
    }
    for (const name of this.registered) if (!now.has(name)) this.engine.registry.remove(name);
    this.registered.clear();
    for (const n of now) this.registered.add(n);
    if (defs.length) await this.engine.register(defs, { version: null, replace: true });
    // Before the engine starts, its start publishes (a lane worker saves a write at start-up).
    else if (this.engine.isStarted) await this.engine.publish();
  }

  /** The project transform: TypeScript members of loadable folders run as pipeline scripts. */
  private transform(file: string, exports: Record<string, unknown>, defs: AnyWorkflow[]): AnyWorkflow[] {
    this.refreshFor(file);
    const member = this.current.member(file);
    if (!member) return defs;
    this.syncRefusals();
    const reason = this.current.notLoaded(member);
    if (reason !== undefined) {
      if (!this.reported.has(member.path)) {
        this.reported.add(member.path);
        this.say(`pipeline script ${member.path} is not loaded (the rest of ${member.folder || "."} is): ${reason}`);
      }
      // Not run as a plain script either: its runs are refused with the reason.
      return defs.filter((d) => d.name !== member.name);
    }
    const main = exports.main;
    if (typeof main !== "function" || isWacWorkflow(main)) return defs;
    return defs.map((d) =>
      d.name === member.name ? this.definition(member, typescriptRunner(main as (...a: unknown[]) => unknown), d) : d,
    );
  }

  /** Rescans when `file` changed since the last scan (dev reloads call the transform first). */
  private refreshFor(file: string): void {
    const known = this.current.member(file);
    let source: string | undefined;
    try {
      source = readFileSync(join(this.root, file), "utf8");
    } catch {
      return;
    }
    const marked = /^[ \t]*(?:\/\/|#|--)[ \t]*pipeline[ \t]*$/m.test(source);
    if ((known && known.source !== source) || (!known && marked))
      this.current = PipelineCatalog.scan(this.root, this.current);
  }
}
