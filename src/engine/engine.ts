/**
 * The engine: a store, the registered workflows, a group committer, and (when
 * enabled) a worker and a scheduler, in one process. This is what `sluice dev`,
 * `sluice worker` and an embedding application create.
 */
import type { CronSchedule } from "../core/cron.js";
import { isDriverFailure, toStorageError } from "../store/storage-error.js";
import {
  choosePublicUrl,
  configuredPublicUrl,
  DEFAULT_PUBLIC_URL,
  normalizePublicUrl,
  PUBLIC_URL_KEY,
} from "../core/public-url.js";
import { join } from "node:path";
import { toMillis } from "../core/duration.js";
import { retentionMillis } from "../core/retention.js";
import { deserializeError, encodeValue } from "../core/serde.js";
import { EngineStoppedError, InvalidInputError, RunIdConflictError, RunNotFoundError } from "../sdk/errors.js";
import type { AssetSdkHost } from "../sdk/windmill/asset-host.js";
import type { Duration } from "../core/duration.js";
import { durationOption } from "../core/duration-option.js";
import { installRuntime, type SignalOptions, type SluiceRuntime, uninstallRuntime } from "../sdk/runtime.js";
import type { EnqueueManyOptions, EnqueueOptions, RunHandle } from "../sdk/types.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { Scheduler } from "../scheduler/scheduler.js";
import { openStore } from "../store/open.js";
import type { CommandResult, EnqueueRequest, RunRecord, SignalOutcome, Store, WorkflowInfo } from "../store/types.js";
import { installConsoleCapture } from "../worker/console-capture.js";
import { carrierOf, endEnqueueSpan, startEnqueueSpan, traceRunEvent } from "../worker/tracing.js";
import { withTraceCarrierMany } from "../core/trace-context.js";
import { Worker } from "../worker/worker.js";
import { defaultWorkerOptions } from "../worker/worker-options.js";
import { GroupCommitter } from "./committer.js";
import { EngineMetrics } from "./metrics.js";
import { Handoff } from "./handoff.js";
import { ExternalLeases } from "./external-leases.js";
import { localServerFor, scopeToServer } from "../store/local-scope.js";
import { buildEnqueueRequest, perRunOptions, type WorkflowDefaults } from "./enqueue-request.js";
import { EngineEvents } from "./events.js";
import { Registry } from "./registry.js";
import { WorkflowLookup } from "./workflow-lookup.js";
import { type ApprovalDecision, type ApprovalDecisionResult, decideApproval } from "./approvals.js";
import { makeRunHandle } from "./run-handle.js";
import { RunWaiters } from "./run-waiters.js";
import { loadResumeSecret } from "./resume-secret.js";
import { loadSecretKey, secretKeySource } from "./secret-key.js";
import { type AssetSdkProvider, type EngineOptions, workerSettings } from "./engine-options.js";

export type { AssetSdkProvider, EngineOptions, EngineWorkerOptions } from "./engine-options.js";

/** Creates an engine. Call `start()` to run its worker and scheduler, `stop()` to shut down. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options);
}

/** A Sluice engine in this process. */
export class Engine implements SluiceRuntime {
  /** The store this engine reads and writes (its own SQLite file or Postgres, or the one given). */
  readonly store: Store;
  /** @internal The workflows this process can run, by name (the CLI, loader and HTTP layer use it). */
  readonly registry = new Registry();
  /** Run defaults and enqueue refusals by workflow name (`workflow-lookup.ts`). */
  private readonly lookup: WorkflowLookup;
  /** @internal Wake-ups between the engine's parts ("work", run finished). */
  readonly events = new EngineEvents();
  /** @internal Batches store writes into group commits. */
  readonly committer: GroupCommitter;
  /** @internal This engine's in-process metrics (served by `GET /metrics` with the store's figures). */
  readonly metrics = new EngineMetrics();
  /** @internal Out-of-process workers' waiting claims that take new runs in their enqueue transaction. */
  readonly handoff = new Handoff();
  /** @internal The worker protocol's claims per external worker (released at once when its supervised process dies). */
  readonly externalLeases = new ExternalLeases();
  /** @internal The built-in worker, or null when this engine only enqueues. */
  readonly worker: Worker | null;
  /** @internal Cron and timer firing, or null when disabled. */
  readonly scheduler: Scheduler | null;
  private readonly waiters: RunWaiters;
  private readonly ownsStore: boolean;
  private readonly maxValueBytes: number | undefined;
  private readonly releaseSchedules: boolean;
  private readonly captureConsole: boolean;
  private configuredSchedules = new Map<string, CronSchedule>();
  /** Server that `local: true` workflows are scoped to; null when the store is not shared across hosts. */
  readonly localServer: string | null;
  private started = false;
  private secretPromise: Promise<string> | null = null;
  /** Where resume and approval links point when configured (option or environment), else the default; see {@link publicUrl}. */
  readonly baseUrl: string;
  private readonly configuredUrl: string | null;
  private stopped = false;
  /** Workflows served by out-of-process workers (the worker protocol): published and scheduled beside the registry's. */
  private readonly external = new Map<string, WorkflowInfo>();
  private assetProvider: AssetSdkProvider | null = null;

  constructor(private readonly options: EngineOptions = {}) {
    this.ownsStore = !options.store;
    this.configuredUrl = configuredPublicUrl([
      ["baseUrl", options.baseUrl],
      ["SLUICE_PUBLIC_URL", process.env.SLUICE_PUBLIC_URL],
      ["SLUICE_BASE_URL", process.env.SLUICE_BASE_URL],
    ]);
    this.baseUrl = this.configuredUrl ?? DEFAULT_PUBLIC_URL;
    this.store = options.store ?? openStore(options.database ?? join(process.cwd(), ".sluice", "sluice.db"));
    this.lookup = new WorkflowLookup(this.registry, this.store);
    this.committer = new GroupCommitter(this.store, undefined, this.metrics);
    this.localServer = localServerFor(this.store, options.server);
    this.waiters = new RunWaiters(this.store, this.events, undefined, (id) => this.worker?.holds(id) ?? false);
    // An external claim whose lease expired and was reclaimed here: its attempt span ends.
    this.events.on("reclaimed", (id) => this.externalLeases.expired(id));
    this.maxValueBytes = options.maxValueBytes;
    this.releaseSchedules = options.releaseSchedules ?? false;
    const random = options.random ?? Math.random;
    this.captureConsole = options.captureConsole !== false;
    const workerOpts =
      options.worker === false
        ? null
        : defaultWorkerOptions({
            server: this.localServer ?? undefined,
            ...(options.worker === true || options.worker === undefined ? {} : workerSettings(options.worker)),
          });
    this.worker = workerOpts
      ? new Worker(
          this.store,
          this.registry,
          this.events,
          {
            committer: this.committer,
            metrics: this.metrics,
            runtime: this,
            inlineSleepMs: durationOption(options.inlineSleep, options.inlineSleepMs, 30_000),
            maxValueBytes: options.maxValueBytes ?? 1024 * 1024,
            random,
            echo: options.echo ?? null,
            resumeLinks: { baseUrl: () => this.publicUrl(), secret: () => this.resumeSecret() },
            runnable: (name, payload) => this.lookup.refusal(name, payload),
          },
          workerOpts,
        )
      : null;
    const sched = options.scheduler ?? true;
    this.scheduler = sched
      ? new Scheduler(this.store, {
          tickMs: typeof sched === "object" ? durationOption(sched.tick, sched.tickMs, 1_000) : 1_000,
          retentionMs: retentionMillis(options.retention),
          retentionEveryMs: 60_000,
          retentionBatch: 500,
          onEnqueued: () => this.events.emit("work"),
          onError: (err) =>
            console.error(
              `sluice scheduler: ${isDriverFailure(err) ? toStorageError(err).message : (err as Error).message}`,
            ),
          onLeadership: typeof sched === "object" ? sched.onLeadership : undefined,
          onScheduleChanges: typeof sched === "object" ? sched.onScheduleChanges : undefined,
          localServer: this.localServer,
        })
      : null;
    for (const wf of options.workflows ?? []) this.registry.add({ def: wf, version: null, source: null });
  }

  /**
   * Where resume and approval links point now: the configured URL, else the one a
   * server recorded in the database, else http://127.0.0.1:7777.
   */
  async publicUrl(): Promise<string> {
    if (this.configuredUrl) return this.configuredUrl;
    const recorded = await this.store.kvGet(PUBLIC_URL_KEY).catch(() => null);
    return choosePublicUrl(null, recorded);
  }

  /** Records this server's public URL in the database, so workers in other processes link to it. */
  async recordPublicUrl(url: string): Promise<void> {
    await this.store.kvPut(PUBLIC_URL_KEY, normalizePublicUrl(url, "public URL"));
  }

  /**
   * Registers workflows and publishes them to the store. With `version` (a bundle
   * hash) runs pin to that code; `replace` updates an existing name (hot reload).
   */
  async register(
    defs: AnyWorkflow | AnyWorkflow[],
    meta: { version?: string | null; source?: string | null; replace?: boolean } = {},
  ): Promise<void> {
    const list = Array.isArray(defs) ? defs : [defs];
    for (const def of list)
      this.registry.add({ def, version: meta.version ?? null, source: meta.source ?? null }, meta.replace);
    if (this.started) await this.publish();
    this.events.emit("work");
  }

  /**
   * Forgets workflows whose module was removed: this process no longer runs new runs of
   * them, the store marks them removed (enqueue refuses them) and their cron stops.
   * Runs pinned to their code versions can still finish.
   */
  async unregister(names: readonly string[]): Promise<void> {
    for (const name of names) this.registry.remove(name);
    if (!this.started) return;
    await this.store.removeWorkflows(names);
    await this.publish();
  }

  /**
   * Where the SDK's asset helpers (`writeS3File`, `getResource`, …) called by this engine's
   * code go: the pipeline host attached to the engine provides it. Returns the function that
   * removes it again (a no-op once another provider replaced it).
   * @internal
   */
  provideAssetSdk(provider: AssetSdkProvider): () => void {
    this.assetProvider = provider;
    return () => {
      if (this.assetProvider === provider) this.assetProvider = null;
    };
  }

  /** The asset storage for SDK calls of this engine's code, if pipelines are attached. @internal */
  assetSdk(): AssetSdkHost | undefined {
    return this.assetProvider?.();
  }

  /** Largest payload, step result or run result this engine stores (bytes). */
  get maxValueLimit(): number {
    return this.maxValueBytes ?? 1024 * 1024;
  }

  /**
   * Publishes workflows that an out-of-process worker serves (the worker protocol). They
   * are enqueued, listed and scheduled like the registry's, but this process never runs
   * them: its own worker claims only its registry's names.
   */
  async registerExternal(infos: WorkflowInfo[]): Promise<void> {
    for (const info of infos) this.external.set(info.name, info);
    await this.store.registerWorkflows(infos);
    await this.syncSchedules(this.allInfos());
    this.events.emit("work");
  }

  /**
   * Withdraws external workflows (their file was deleted or no longer loads): marked removed
   * in the store like {@link unregister}'s, so enqueueing them is refused.
   */
  async unregisterExternal(names: readonly string[]): Promise<void> {
    for (const name of names) this.external.delete(name);
    if (!this.started) return;
    await this.store.removeWorkflows(names);
    await this.publish();
  }

  /**
   * Sets the cron schedules configured outside the code (`sluice.json` schedule rows): runnable
   * name → schedule, replacing what its code declares. Applied at the next {@link publish}.
   * @internal
   */
  setConfiguredSchedules(schedules: ReadonlyMap<string, CronSchedule>): void {
    this.configuredSchedules = new Map(schedules);
  }

  /** What this engine publishes: its registry and external workflows, with the configured schedules. @internal */
  publishedInfos(): WorkflowInfo[] {
    const own = this.registry.infos();
    const names = new Set(own.map((w) => w.name));
    const all = [...own, ...[...this.external.values()].filter((w) => !names.has(w.name))];
    return all.map((w) => {
      const schedule = this.configuredSchedules.get(w.name);
      return schedule ? { ...w, schedule } : w;
    });
  }

  private allInfos(): WorkflowInfo[] {
    return this.publishedInfos();
  }

  /** True once {@link start} has run: registering publishes at once from then on. */
  get isStarted(): boolean {
    return this.started;
  }

  /** Publishes the registry (and external workflows) to the store and syncs cron schedules. */
  async publish(): Promise<void> {
    const infos = this.allInfos();
    await this.store.registerWorkflows(infos);
    await this.syncSchedules(infos);
  }

  /** Syncs this process's cron schedules (in release mode, the release owns its own workflows' ones). */
  private async syncSchedules(infos: WorkflowInfo[]): Promise<void> {
    if (!this.scheduler) return;
    await this.scheduler.sync(
      infos,
      this.releaseSchedules ? (w) => this.registry.get(w.name) !== undefined : undefined,
    );
  }

  /** Publishes workflows and starts the worker and scheduler. */
  async start(): Promise<void> {
    if (this.started) return;
    installRuntime(this);
    // Process-wide and idempotent: only an engine that runs code routes console output to run logs.
    if (this.captureConsole) installConsoleCapture();
    // Published before it counts as started: when the database refuses, start() can be called again.
    await this.publish();
    this.started = true;
    // A process that runs work commits often from here on: the store makes room for it first.
    if (this.worker) this.store.reserveLog?.();
    this.worker?.start();
    this.scheduler?.start();
  }

  /**
   * Stops claiming, drains running claims (up to `drain`, default `"30s"`), flushes writes,
   * closes an owned store. Claims still running after the drain are abandoned: their leases are
   * released at once, so another worker retries those runs without waiting for the leases to
   * expire. `drainMs` is the deprecated name of `drain`.
   */
  async stop(
    options: {
      drain?: Duration;
      /** The earlier name of `drain`, in ms. @deprecated Use `drain` (a Duration; a number is ms). */
      drainMs?: number;
    } = {},
  ): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.waiters.close((id) => new EngineStoppedError(id));
    await this.worker?.stop(durationOption(options.drain, options.drainMs, 30_000));
    await this.scheduler?.stop();
    await this.committer.drain();
    uninstallRuntime(this);
    if (this.ownsStore) await this.store.close();
  }

  /** Enqueues a run of `workflow` (a name or a definition) and returns a handle to it. */
  async enqueueRun<R = unknown>(
    workflow: string | AnyWorkflow,
    payload: unknown,
    options: EnqueueOptions = {},
  ): Promise<RunHandle<R>> {
    const [handle] = await this.enqueueMany<R>(workflow, [payload], options);
    return handle!;
  }

  /**
   * Enqueues many runs of one workflow in one group commit and returns their handles in
   * the payloads' order. `options.ids` gives each run its id (deduplicated like `id`).
   * @example
   * const handles = await engine.enqueueMany("resize", images, { ids: images.map((i) => `resize-${i.key}`) });
   * const runs = await engine.waitForRuns(handles.map((h) => h.id));
   * @throws InvalidInputError (`INVALID_IDS`) when `ids` does not match the payloads one to one
   */
  async enqueueMany<R = unknown>(
    workflow: string | AnyWorkflow,
    payloads: readonly unknown[],
    options: EnqueueManyOptions = {},
  ): Promise<RunHandle<R>[]> {
    const perRun = perRunOptions(payloads.length, options);
    // A workflow registered here (the usual case) is known without an `await`.
    const found = this.lookup.defaults(workflow);
    const defaults = found instanceof Promise ? await found : found;
    if (this.options.admit) await this.options.admit(defaults.queue, this.store, defaults.name);
    const requests = payloads.map((p, i) => buildEnqueueRequest(defaults, p, perRun[i], this.maxValueBytes));
    // The runs continue the trace active here: their attempts and children hang under this span.
    const span = startEnqueueSpan(defaults.name, requests.length, options.trace);
    const carrier = carrierOf(span);
    if (carrier) {
      const stamped = withTraceCarrierMany(
        requests.map((r) => r.options),
        carrier,
      );
      requests.forEach((r, i) => (r.options = stamped[i]));
    }
    try {
      const handles = await this.submitEnqueues<R>(defaults, requests, !options.concurrency);
      endEnqueueSpan(span, handles);
      return handles;
    } catch (err) {
      endEnqueueSpan(span, err as Error);
      throw err;
    }
  }

  /**
   * Writes built enqueue requests, leased to a local worker or an external taker where one
   * is free and `direct` (false under a concurrency limit: that is checked at claim).
   */
  private async submitEnqueues<R>(
    defaults: WorkflowDefaults,
    requests: EnqueueRequest[],
    direct: boolean,
  ): Promise<RunHandle<R>[]> {
    if (this.localServer && (defaults as { local?: boolean }).local) scopeToServer(requests, this.localServer);
    // A local worker with free slots takes new runs in the enqueue transaction itself, unless
    // a concurrency limit applies: that is checked at claim, so such runs are claimed normally.
    const local =
      direct && this.worker && this.registry.get(defaults.name)
        ? this.worker.reserve(requests.length, defaults.queue)
        : null;
    if (local)
      for (let i = 0; i < local.count; i++)
        requests[i]!.claimFor = { workerId: local.workerId, leaseMs: local.leaseMs };
    // The rest may go to an external worker's waiting claim (the worker protocol).
    const handed = direct ? this.handoff.assign(requests, local?.count ?? 0, defaults.name) : [];
    let results: CommandResult[];
    // When each leased run's enqueue went to the store (its claim's time was read then).
    const sentAt: number[] = [];
    const leased = local?.count ?? 0;
    try {
      const submit = (request: EnqueueRequest, i: number) =>
        this.committer.submit({ verb: "enqueue", request }, i < leased ? (at) => (sentAt[i] = at) : undefined);
      // One run (`start()`): its one answer awaited, without `Promise.all`'s promises.
      results = requests.length === 1 ? [await submit(requests[0]!, 0)] : await Promise.all(requests.map(submit));
    } catch (err) {
      if (local) this.worker!.release(local.count);
      Handoff.settle(handed, null);
      throw err;
    }
    const externally = Handoff.settle(handed, results);
    // Before any of them can start here: a waiter on a run just created skips its first read. Only
    // with a running worker, whose own watch of the store is open already: a producer alone would
    // open one (a LISTEN connection on Postgres) for every enqueue.
    if (this.started && this.worker)
      this.waiters.created(results.flatMap((r) => (r.ok && !r.enqueued!.deduplicated ? [r.enqueued!.id] : [])));
    let adopted = externally;
    const handles = results.map((r, i) => {
      if (!r.ok) return r;
      const claimed = r.enqueued!.claimed;
      // Requests before local.count were leased to the built-in worker, the others to external takers.
      if (claimed && i < (local?.count ?? 0)) {
        adopted++;
        this.worker!.adopt(claimed, sentAt[i]);
      }
      return makeRunHandle<R>(this, r.enqueued!.id, r.enqueued!.deduplicated);
    });
    if (local) this.worker!.release(local.count - (adopted - externally));
    if (adopted < requests.length) this.events.emit("work");
    return handles.map((h, i) => {
      if ("ok" in h) {
        const err = "error" in h ? h.error : null;
        if (err?.code === "RUN_ID_CONFLICT")
          throw Object.assign(new RunIdConflictError(requests[i]!.id, ""), { message: err.message });
        // The store's refusal keeps its code (and data) across the boundary.
        throw err ? deserializeError(err) : new Error("enqueue refused");
      }
      return h;
    });
  }

  /** Sends a signal; returns how many waiting runs it woke (see {@link sendSignal}). */
  async signal(event: string, payload?: unknown, options?: SignalOptions): Promise<number> {
    return (await this.sendSignal(event, payload, options)).woken;
  }

  /**
   * Sends a signal: wakes the runs waiting on `event`; with `options.buffer`, keeps it for the
   * next `waitFor` when none was waiting.
   * @throws InvalidInputError for an empty event name; InvalidDurationError for a bad `buffer`
   */
  async sendSignal(event: string, payload?: unknown, options?: SignalOptions): Promise<SignalOutcome> {
    if (typeof event !== "string" || event.length === 0)
      throw new InvalidInputError("signal needs a non-empty event name");
    const bufferMs = options?.buffer === undefined ? undefined : toMillis(options.buffer);
    const outcome = await this.store.signal(
      event,
      encodeValue(payload ?? null, `payload of signal ${JSON.stringify(event)}`, this.maxValueBytes),
      bufferMs,
    );
    if (outcome.woken > 0) this.events.emit("work");
    return outcome;
  }

  /**
   * Cancels a run (and its unfinished children).
   * @returns the run's status afterwards (its final status if it had already finished)
   * @throws RunNotFoundError
   */
  async cancel(runId: string, reason: string | null = null): Promise<RunRecord["status"]> {
    const status = await this.store.cancel(runId, reason);
    if (status === null) throw new RunNotFoundError(runId);
    // Read once: waiters and the printer take the run from the event, the span from here.
    const run = await this.store.getRun(runId).catch(() => null);
    this.events.emit("settled", runId, run ?? undefined);
    this.events.emit("work");
    this.metrics.cancelled(status);
    if (run) traceRunEvent("cancel", run, status); // a no-op without an SDK
    return status;
  }

  /**
   * The secret that signs resume links: kept in the database, so every process agrees, sealed
   * under the secret key (`engine/secret-key.ts`), so the database alone cannot forge links.
   */
  resumeSecret(): Promise<string> {
    this.secretPromise ??= (async () => {
      const source = secretKeySource({
        option: this.options.secretKey,
        env: process.env.SLUICE_SECRET_KEY,
        location: this.store.location,
        cwd: process.cwd(),
      });
      return loadResumeSecret(this.store, loadSecretKey(source));
    })();
    this.secretPromise.catch(() => (this.secretPromise = null));
    return this.secretPromise;
  }

  /**
   * Approves or rejects a run's pending `waitForApproval`. Refused (never applied twice)
   * after a decision, a timeout or a cancel; `selfApproval: false` refuses the run's
   * creator. Every attempt is audited.
   */
  async decideApproval(decision: ApprovalDecision): Promise<ApprovalDecisionResult> {
    const result = await decideApproval(this.store, decision);
    if (result.outcome === "resolved") this.events.emit("work");
    return result;
  }

  /**
   * Gives a failed or cancelled run another attempt, keeping its checkpoints.
   * @throws RunNotFoundError; InvalidInputError for a child task (retry its parent instead)
   */
  async retry(runId: string): Promise<RunRecord["status"]> {
    const run = await this.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (run.parentId) {
      throw new InvalidInputError(
        `run ${runId} is a child task of ${run.parentId}: its result is already part of the parent; retry the parent run instead`,
        { code: "INVALID_RETRY" },
      );
    }
    const status = await this.store.retry(runId);
    if (status === "pending") this.events.emit("work");
    return status ?? run.status;
  }

  /** A handle on an existing run. */
  handle<R = unknown>(runId: string): RunHandle<R> {
    return makeRunHandle<R>(this, runId, false);
  }

  /** The stored run, or null. */
  getRun(id: string): Promise<RunRecord | null> {
    return this.store.getRun(id);
  }

  /**
   * Resolves with the run once it is finished (succeeded, failed or cancelled).
   * @throws RunNotFoundError, WaitTimeoutError
   */
  waitForRun(id: string, timeout?: Duration): Promise<RunRecord> {
    return this.waiters.wait(id, durationOption(timeout, undefined));
  }

  /**
   * Waits until every run in `ids` is finished and returns them in the same order (a run
   * that fails or is cancelled is returned, not thrown). `timeout` (`"1m"`, ms) bounds the whole wait.
   * @throws RunNotFoundError for an unknown id; WaitTimeoutError when the time runs out first
   */
  waitForRuns(ids: readonly string[], timeout?: Duration): Promise<RunRecord[]> {
    const ms = durationOption(timeout, undefined);
    return Promise.all(ids.map((id) => this.waiters.wait(id, ms)));
  }
}
