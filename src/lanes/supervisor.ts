/**
 * Scale to zero (seed 002): a server keeps no worker process while nothing is runnable
 * and starts one worker per worker group ("lane") when work becomes runnable. The
 * supervisor learns of work from this process's events (enqueue, a cron tick, a signal,
 * an approval), from `Store.watch` (other processes' commits), and from a timer set to
 * the next `ready_at` (a due sleep, retry or `runAt`); a poll is the safety net. It also
 * reclaims expired leases, since no worker may be alive to do it. Each lane then runs at
 * most one claiming worker per server; a worker that crashes before its first claim
 * stops the lane and is recorded (see `crash-record.ts`).
 */
import { LaneMetrics } from "./lane-metrics.js";
import { leaseRetryDelay } from "../core/backoff.js";
import type { EngineEvents } from "../engine/events.js";
import type { Store } from "../store/types.js";
import { describeFailure } from "../store/storage-error.js";
import { encodeLaneCrash, type LaneCrash, LaneCrashedError, laneCrashKey, listLaneCrashes } from "./crash-record.js";
import { Lane, type LaneInfo } from "./lane.js";
import { checkSpacing, fullCheckBudget, laneDemand, takeCheck } from "./policy.js";
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

/** Starts and stops lane workers on demand. */
export class LaneSupervisor {
  private readonly lanes = new Map<string, Lane>();
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
  admit(group: string): void {
    const crash = this.crashes.get(group);
    if (crash) throw new LaneCrashedError(crash);
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
    for (const lane of this.lanes.values()) lane.retire();
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
    this.lastCheckMs = performance.now() - started;
    const storeNow = await store.now();
    const demand = laneDemand(rows, storeNow, this.options.localServer);
    let next: number | null = demand.nextAt === null ? null : this.now() + (demand.nextAt - storeNow);
    for (const group of demand.due) {
      const lane = this.lane(group);
      lane.demand();
      const held = lane.heldUntil();
      if (held !== null) next = next === null ? held : Math.min(next, held);
    }
    this.wakeAt = next;
    this.armTimer();
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

  private lane(group: string): Lane {
    let lane = this.lanes.get(group);
    if (!lane) {
      lane = new Lane(group, {
        spawner: this.options.spawner,
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
