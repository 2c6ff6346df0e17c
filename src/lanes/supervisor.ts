/**
 * Scale to zero (seed 002): a server keeps no worker process while nothing is runnable
 * and starts one worker per worker group ("lane") when work becomes runnable. The
 * supervisor learns of work from this process's events (enqueue, a cron tick, a signal,
 * an approval), from `Store.watch` (other processes' commits), and from a timer set to
 * the next `ready_at` (a due sleep, retry or `runAt`); a poll is the safety net. It also
 * reclaims expired leases, since no worker may be alive to do it. Each lane then runs at
 * most one claiming worker per server; a worker that crashes before its first claim
 * stops the lane and is recorded (see `crash-record.ts`).
 *
 * Worker commands (`sluice.json` `workers`, {@link LaneSupervisor.addCommand}) are lanes too,
 * woken by the same checks: a command's lane has work when a run of a workflow it claims is
 * runnable. What it claims is learned from its processes' claim requests (the worker
 * protocol), so each command is started once when added (it registers its workflows and
 * exits after its idle window); until one of its processes has asked for work, runs of
 * published workflows that nothing here serves start it. A crashed command lane is tried
 * again after its back-off whether or not work waits: enqueues of its workflows are refused
 * meanwhile, so none might come.
 */
import { LaneMetrics } from "./lane-metrics.js";
import { leaseRetryDelay } from "../core/backoff.js";
import type { EngineEvents } from "../engine/events.js";
import type { QueueReadiness, Store } from "../store/types.js";
import { describeFailure } from "../store/storage-error.js";
import {
  clearLaneCrash,
  crashRefuses,
  encodeLaneCrash,
  type LaneCrash,
  LaneCrashedError,
  laneCrashKey,
  listLaneCrashes,
} from "./crash-record.js";
import { Lane, type LaneInfo } from "./lane.js";
import { checkSpacing, commandDemand, fullCheckBudget, laneDemand, takeCheck, unservedWorkflows } from "./policy.js";
import { describeReclaim, type ReclaimMetrics, reclaimExpiredLeases } from "../worker/reclaim.js";
import { terminalSafe } from "../core/terminal-text.js";
import type { LaneSpawner } from "./spawn.js";

/** Options of a {@link LaneSupervisor}. */
export interface LaneSupervisorOptions {
  store: Store;
  /** This process's engine events: `work` means something may have become runnable. */
  events: EngineEvents;
  /** Workflows the lanes' workers can run (the server's registry). */
  workflows: () => readonly string[];
  /** Workflows served by workers this supervisor does not start (the Python files' worker): not a worker command's. */
  servedElsewhere?: () => readonly string[];
  /** The server that local queues (`group@server`) belong to, or null when the store is not shared. */
  localServer: string | null;
  /** This server's name in crash records and messages. */
  serverName: string;
  spawner: LaneSpawner;
  /** First wait before trying a crashed lane again while work is waiting (doubles per crash). Default 30 s. */
  crashRetryMs?: number;
  /** Safety-net poll and lease reclaim interval (ms). Default 1 000. */
  pollMs?: number;
  /** Supervisor log lines. */
  log: (text: string) => void;
  /** Where the leases this supervisor reclaims are counted (the server engine's metrics). */
  reclaimMetrics?: ReclaimMetrics;
  /** Wall clock (ms), for back-off times. */
  now?: () => number;
  random?: () => number;
}

/** A worker command of `sluice.json` `workers` run as a lane (scale to zero); see {@link LaneSupervisor.addCommand}. */
export interface CommandLaneSpec {
  /** The lane's name (`command:<label>`): in logs, `GET /api/lanes` and its crash record. */
  name: string;
  /** The command line, as written in `sluice.json`. */
  command: string;
  /** Starts a process of the command (`cli/command-lane.ts`). */
  spawner: LaneSpawner;
}

/** Starts and stops lane workers on demand. */
export class LaneSupervisor {
  private readonly lanes = new Map<string, Lane>();
  /** The names of the worker commands' lanes (also in {@link lanes}). */
  private readonly commands = new Set<string>();
  /** The lane workers' metrics, served by this server's `/metrics`. */
  readonly metrics = new LaneMetrics();
  /** Recorded lane crashes of every server, by group (refreshed each poll): what enqueues are refused for. */
  private crashes = new Map<string, LaneCrash>();
  /** Crashes of this server's lanes not yet written to the store (kept across reloads of the records). */
  private readonly unwritten = new Map<string, LaneCrash>();
  private readonly pollMs: number;
  private readonly now: () => number;
  private pollTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private wakeAt: number | null = null;
  private unwatch: (() => void) | null = null;
  /** Serialises checks and crash-record writes, so a refresh never reads around a write. */
  private queue: Promise<void> = Promise.resolve();
  private pending = false;
  /** How long the last check's query took (ms), and the budget that spaces checks (`policy.ts`). */
  private lastCheckMs = 0;
  private budget = fullCheckBudget(performance.now());
  private running = false;
  /** The failure the checks last reported, until one succeeds (said once: {@link failedWith}). */
  private failure: string | null = null;
  private readonly onWork = () => this.wake();

  constructor(private readonly options: LaneSupervisorOptions) {
    this.pollMs = options.pollMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts supervising: forgets this server's old crash records (a restarted server is a
   * new attempt), then starts lanes for work that is already runnable.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.forgetOwnCrashes();
    this.crashes = await this.loadCrashes();
    this.options.events.on("work", this.onWork);
    this.unwatch = this.options.store.watch(this.onWork);
    this.pollTimer = setInterval(() => void this.serial(() => this.poll(), true), this.pollMs);
    this.pollTimer.unref();
    await this.serial(() => this.check());
  }

  /**
   * Refuses an enqueue into `group` while its lane is recorded as crashed (by this or
   * another server).
   * @throws LaneCrashedError
   */
  admit(group: string, workflow?: string): void {
    for (const crash of this.crashes.values())
      if (crashRefuses(crash, group, workflow)) throw new LaneCrashedError(crash);
  }

  /**
   * Runs a worker command as a lane: started now to learn what it serves (it registers its
   * workflows, asks for work and exits after its idle window), then whenever a run of a
   * workflow it claims is runnable.
   */
  addCommand(spec: CommandLaneSpec): void {
    const lane = this.lane(spec.name, spec);
    this.commands.add(spec.name);
    if (this.running) lane.demand(true);
  }

  /** Drains the worker commands' lanes and stops them (before the API they need closes). */
  async stopCommands(drainMs: number): Promise<void> {
    await Promise.all([...this.commands].map((name) => this.lanes.get(name)!.stop(drainMs)));
  }

  /** Every lane this supervisor has started, with its mode and worker pid. */
  lanesInfo(): LaneInfo[] {
    return [...this.lanes.values()].map((l) => l.info()).sort((a, b) => a.group.localeCompare(b.group));
  }

  /**
   * The code changed: each lane's worker drains its running claims in the background and
   * new work starts a fresh worker on the new code; crashed lanes get a fresh chance.
   */
  async refresh(): Promise<void> {
    // A worker command's code is not the project's modules: its process keeps running.
    for (const lane of this.lanes.values()) if (!this.commands.has(lane.group)) lane.retire();
    await this.serial(async () => {
      this.unwritten.clear();
      await this.forgetOwnCrashes();
      this.crashes = await this.loadCrashes();
      await this.check();
    });
  }

  /** Stops starting workers, drains every lane (killing what still runs after `drainMs`). */
  async stop(drainMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.options.events.off("work", this.onWork);
    this.unwatch?.();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    await this.queue;
    await Promise.all([...this.lanes.values()].map((l) => l.stop(drainMs)));
  }

  /** Something may have become runnable: check soon (checks are coalesced). */
  wake(): void {
    if (!this.running || this.pending) return;
    this.pending = true;
    // Busy workers commit constantly and every commit wakes us: checks are spaced (a burst of two allowed).
    const { waitMs: wait, budget } = takeCheck(this.budget, performance.now(), checkSpacing(this.lastCheckMs));
    this.budget = budget;
    const run = () =>
      void this.serial(async () => {
        this.pending = false;
        await this.check();
      });
    if (wait === 0) run();
    else setTimeout(run, wait).unref();
  }

  /** `poll`: the full poll (it writes: reclaims), whose success is what says the checks work again. */
  private serial(fn: () => Promise<void>, poll = false): Promise<void> {
    const next = this.queue.then(fn).then(
      () => (poll ? this.failedWith(null) : undefined),
      (err) => this.failedWith(describeFailure(err)),
    );
    this.queue = next;
    return next;
  }

  /**
   * Says a failure of the checks once, not at every poll while it lasts (a database down for a minute
   * is one line), and says when they work again.
   */
  private failedWith(failure: string | null): void {
    if (failure === this.failure) return;
    if (failure !== null) this.options.log(`lanes: ${terminalSafe(failure)}; retrying\n`);
    else this.options.log(`lanes: working again (after: ${terminalSafe(this.failure ?? "")})\n`);
    this.failure = failure;
  }

  /** Reclaims expired leases, reloads crash records, then checks for work. */
  private async poll(): Promise<void> {
    if (!this.running) return;
    const random = this.options.random ?? Math.random;
    const reclaimed = await reclaimExpiredLeases(
      this.options.store,
      leaseRetryDelay(random),
      this.options.reclaimMetrics,
      this.options.events,
    );
    for (const r of reclaimed.runs) this.options.log(`lanes: ${terminalSafe(describeReclaim(r))}\n`);
    const crashes = await this.loadCrashes();
    // A record cleared elsewhere (a successful claim) lets a crashed lane start again.
    for (const [group, lane] of this.lanes) if (!crashes.has(group)) lane.recover();
    this.crashes = crashes;
    await this.check();
  }

  /** Starts lanes that have runnable work and sets the timer for the next due run. */
  private async check(): Promise<void> {
    if (!this.running) return;
    const store = this.options.store;
    const started = performance.now();
    const rows = await store.readyByQueue(this.options.workflows());
    const commandRows = await this.commandRows();
    this.lastCheckMs = performance.now() - started;
    const storeNow = await store.now();
    const demand = laneDemand(rows, storeNow, this.options.localServer);
    let next: number | null = null;
    const wakeAt = (at: number | null) => {
      if (at !== null) next = next === null ? at : Math.min(next, at);
    };
    if (demand.nextAt !== null) wakeAt(this.now() + (demand.nextAt - storeNow));
    for (const group of demand.due) {
      const lane = this.lane(group);
      lane.demand();
      wakeAt(lane.heldUntil());
    }
    for (const [lane, ready] of commandRows) {
      const d = commandDemand(ready, storeNow, this.options.localServer, lane.serves?.groups ?? null);
      if (d.nextAt !== null) wakeAt(this.now() + (d.nextAt - storeNow));
      // A crashed command is tried again after its back-off even without work (see the module comment).
      if (d.due || lane.state.mode === "crashed") lane.demand();
      wakeAt(lane.heldUntil());
    }
    this.wakeAt = next;
    this.armTimer();
  }

  /**
   * The readiness rows of each worker command lane that has no process (idle or crashed): of the
   * workflows it claims, or, while it has not said, of the published workflows nothing here serves.
   */
  private async commandRows(): Promise<Array<[Lane, QueueReadiness[]]>> {
    const { store } = this.options;
    const lanes = [...this.commands].map((name) => this.lanes.get(name)!);
    const waiting = lanes.filter((l) => l.state.mode === "idle" || l.state.mode === "crashed");
    if (waiting.length === 0) return [];
    let unserved: Promise<QueueReadiness[]> | null = null;
    const orphans = () =>
      (unserved ??= (async () => {
        const served = new Set([...this.options.workflows(), ...(this.options.servedElsewhere?.() ?? [])]);
        for (const l of lanes) for (const w of l.serves?.workflows ?? []) served.add(w);
        const names = unservedWorkflows(await store.listWorkflows(), served);
        return names.length ? store.readyByQueue(names) : [];
      })());
    const out: Array<[Lane, QueueReadiness[]]> = [];
    for (const lane of waiting) {
      const serves = lane.serves;
      out.push([lane, serves ? await store.readyByQueue(serves.workflows) : await orphans()]);
    }
    return out;
  }

  private armTimer(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (this.wakeAt === null || !this.running) return;
    const wait = Math.max(1, this.wakeAt - this.now() + 1);
    // The poll runs anyway within pollMs; a timer only helps when it fires sooner.
    if (wait >= this.pollMs) return;
    this.wakeTimer = setTimeout(() => this.wake(), wait);
    this.wakeTimer.unref();
  }

  private lane(group: string, command?: CommandLaneSpec): Lane {
    let lane = this.lanes.get(group);
    if (!lane) {
      lane = new Lane(group, {
        spawner: command?.spawner ?? this.options.spawner,
        ...(command && { command: command.command, onClaimed: () => this.claimed(group) }),
        log: this.options.log,
        now: this.now,
        crashRetryMs: this.options.crashRetryMs ?? 30_000,
        server: this.options.serverName,
        onCrash: (crash) => this.recordCrash(crash),
        onExit: () => this.wake(),
        metrics: this.metrics,
      });
      this.lanes.set(group, lane);
    }
    return lane;
  }

  /**
   * A worker command's process claimed its first run: its lane's crash record, if any, is
   * deleted (a lane worker of a group deletes its own, `claim-recovery.ts`).
   */
  private claimed(lane: string): void {
    if (!this.crashes.has(lane) && !this.unwritten.has(lane)) return;
    this.crashes.delete(lane);
    this.unwritten.delete(lane);
    void this.serial(async () => {
      if (await clearLaneCrash(this.options.store, lane))
        this.options.log(`lane ${lane}: claimed a run, the lane's crash record is cleared\n`);
    });
  }

  private recordCrash(crash: LaneCrash): void {
    this.crashes.set(crash.group, crash);
    this.unwritten.set(crash.group, crash);
    void this.serial(async () => {
      await this.options.store.kvPut(laneCrashKey(crash.group), encodeLaneCrash(crash));
      if (this.unwritten.get(crash.group) === crash) this.unwritten.delete(crash.group);
    });
  }

  /** The stored crash records plus this server's crashes still being written. */
  private async loadCrashes(): Promise<Map<string, LaneCrash>> {
    const crashes = await listLaneCrashes(this.options.store);
    for (const [group, crash] of this.unwritten) crashes.set(group, crash);
    return crashes;
  }

  private async forgetOwnCrashes(): Promise<void> {
    const store = this.options.store;
    for (const [group, crash] of await listLaneCrashes(store)) {
      if (crash.server === this.options.serverName) await store.kvDelete(laneCrashKey(group));
    }
  }
}
