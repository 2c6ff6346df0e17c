/**
 * Time-driven work that is not tied to one run: cron ticks, retention, and re-anchoring the due
 * times a clock since set back wrote (`store/clock-reanchor.ts`).
 * (Timers of sleeping runs need no scheduler: a parked run's `ready_at` makes it
 * claimable when due. Expired leases are reclaimed by every worker.)
 *
 * Any number of processes may run a scheduler on one database; only the one that
 * holds the store's `scheduler` leadership fires cron and runs retention, and
 * another takes over within a few ticks when it dies. Firing stays compare-and-set
 * with a run id derived from the tick, so even a deposed leader that has not
 * noticed yet cannot fire a tick twice.
 */
import { type CronSchedule, nextFireAfter } from "../core/cron.js";
import { defaultRetentionPace, nextRetentionBatch, retentionRestMs } from "../core/retention-pace.js";
import { CLOCK_BACK_TOLERANCE_MS, reanchoredNextAt } from "../store/clock-reanchor.js";
import { localQueue } from "../store/local-scope.js";
import type { Store, WorkflowInfo } from "../store/types.js";
import { describeScheduleSync, keptForeign, planScheduleSync, type ScheduleChange } from "../store/schedule-sync.js";

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  /** How often to look for due cron ticks (ms). Default 1 000. */
  tickMs: number;
  /** Keep finished runs this long (ms), null for forever. */
  retentionMs: number | null;
  /** How often retention runs (ms). Default 60 000. */
  retentionEveryMs: number;
  /** Most runs deleted per transaction (fewer when a transaction takes over 15 ms). Default 500. */
  retentionBatch: number;
  /** Called after a tick enqueued runs (to wake local workers). */
  onEnqueued?: () => void;
  /** Called with errors of a tick (the next tick retries). */
  onError?: (err: unknown) => void;
  /** Identifies this scheduler in the leadership (default: a random id). */
  holder?: string;
  /** Leadership lease on stores that need one (SQLite), ms. Default max(5 000, 3 x tickMs). */
  leaderTtlMs?: number;
  /** Called when this scheduler becomes or stops being the leader. */
  onLeadership?: (leading: boolean) => void;
  /** Called when a {@link Scheduler.sync} removed or changed schedules that were stored before. */
  onScheduleChanges?: (changes: ScheduleChange[]) => void;
  /**
   * On a shared database: this server's name. Schedules of `local: true` workflows are
   * then kept by this scheduler alone and fire on every server, leader or not (see
   * `store/local-scope.ts`); null or absent: every schedule is shared.
   */
  localServer?: string | null;
}

/** How often the leader re-anchors due times when it has not seen its own clock go back (ms). */
const REANCHOR_EVERY_MS = 60_000;
/** How often the same failure of every tick is told again. */
const ERROR_REPEAT_MS = 30_000;

/** Name of the leadership that decides which scheduler fires cron and runs retention. */
const SCHEDULER_LEADERSHIP = "scheduler";

/** A schedule of a local workflow, kept in memory by each server. */
interface LocalSchedule {
  info: WorkflowInfo;
  schedule: CronSchedule;
  nextAt: number | null;
  /** When `nextAt` was computed (the store's clock then). */
  writtenAt: number;
}

/** Fires cron schedules once per tick and deletes expired history. */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  /**
   * Monotonic time (`performance.now()`) of the last retention, null before the first. Intervals
   * are measured on the monotonic clock so that a wall clock jumping back does not hold retention
   * off until it catches up (nor a jump forward run it early).
   */
  private lastRetention: number | null = null;
  private ticking: Promise<void> | null = null;
  /** Wall and monotonic time of the last tick as leader (a wall clock set back shows between two). */
  private lastSeen: { wall: number; mono: number } | null = null;
  /** Monotonic time of the last re-anchoring pass, null before the first. */
  private lastReanchor: number | null = null;
  /** Set by {@link stop}: a retention in progress ends after its current transaction. */
  private stopping = false;
  /** Schedules of local workflows (per server): next tick in memory, fired by every server. */
  private local = new Map<string, LocalSchedule>();
  private leading = false;
  /** Wall-clock time (ms) of the store's last answer to `lead`, or null before the first. */
  private leadershipAt: number | null = null;
  /** The failure last told to `onError` and when (monotonic ms): a database that stays down is told every 30 s, not every tick. */
  private lastError: { text: string; at: number } | null = null;
  /** The same moment on the monotonic clock (`performance.now()`), for the staleness check. */
  private leadershipMono = 0;
  private readonly holder: string;
  /** Keep finished runs this long (ms), null for forever: `options.retentionMs`, then {@link setRetention}'s. */
  private keepMs: number | null;

  constructor(
    private readonly store: Store,
    private readonly options: SchedulerOptions,
  ) {
    this.holder = options.holder ?? `scheduler:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
    this.keepMs = options.retentionMs;
  }

  /** How long finished runs are kept (ms), null for forever. */
  get retentionMs(): number | null {
    return this.keepMs;
  }

  /**
   * Keeps finished runs `ms` from now on (null: forever). A change applies at the next tick as leader,
   * without waiting for the rest of the retention interval.
   */
  setRetention(ms: number | null): void {
    if (ms === this.keepMs) return;
    this.keepMs = ms;
    this.lastRetention = null;
  }

  /** True while this scheduler is the leader (as of its last tick). */
  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * What this scheduler knows of its leadership: `leader` or `standby` as of the store's
   * last answer, or `unknown` before the first answer or when the last one is older than
   * the leadership lease (the store has stopped answering `lead`, so the state is stale).
   * The age of the answer is measured on the monotonic clock unless `now` (wall clock) is given,
   * so a wall clock that jumps neither hides a stale answer nor discards a fresh one.
   */
  leadership(now?: number): { state: "leader" | "standby" | "unknown"; checkedAt: number | null } {
    const at = this.leadershipAt;
    const age = at === null ? 0 : now === undefined ? performance.now() - this.leadershipMono : now - at;
    if (at === null || age > this.leaderTtlMs) return { state: "unknown", checkedAt: at };
    return { state: this.leading ? "leader" : "standby", checkedAt: at };
  }

  private get leaderTtlMs(): number {
    return this.options.leaderTtlMs ?? Math.max(5_000, 3 * this.options.tickMs);
  }

  /**
   * Writes the schedules of `workflows` to the store as this process's (owner `process`: a
   * deploy's schedules are left alone; unchanged ones keep their next tick). `fromRelease` names
   * the workflows whose shared schedule `sluice deploy` publishes instead (a `--release` server's
   * own workflows): they are not written here. Schedules of workflows this process does not serve
   * and that come from no module file (an out-of-process worker's, an embedded engine's) are kept
   * (`keptForeign`). Returns the schedules it removed or changed (also told to `onScheduleChanges`).
   */
  async sync(
    workflows: WorkflowInfo[],
    fromRelease: (w: WorkflowInfo) => boolean = () => false,
  ): Promise<ScheduleChange[]> {
    const now = await this.store.now();
    const isLocal = (w: WorkflowInfo) => Boolean(this.options.localServer && w.local);
    const own = workflows.flatMap((w) =>
      w.schedule && !isLocal(w) && !fromRelease(w)
        ? [{ workflow: w.name, ...w.schedule, nextAt: nextFireAfter(w.schedule, now) }]
        : [],
    );
    const [stored, published] = await Promise.all([this.store.listSchedules(), this.store.listWorkflows()]);
    const entries = [...own, ...keptForeign(stored, published, new Set(workflows.map((w) => w.name)))];
    const changes = describeScheduleSync(stored, planScheduleSync(stored, entries, "process"));
    await this.store.syncSchedules(entries, "process");
    if (changes.length) this.options.onScheduleChanges?.(changes);
    const local = new Map<string, LocalSchedule>();
    for (const w of workflows) {
      if (!w.schedule || !isLocal(w)) continue;
      const old = this.local.get(w.name);
      const same = old && old.schedule.cron === w.schedule.cron && old.schedule.timezone === w.schedule.timezone;
      local.set(
        w.name,
        same
          ? { ...old, info: w }
          : { info: w, schedule: w.schedule, nextAt: nextFireAfter(w.schedule, now), writtenAt: now },
      );
    }
    this.local = local;
    return changes;
  }

  /**
   * Fires due schedules of this server's local workflows (missed ticks collapse into
   * one; ticks missed while the server was down are not replayed). The run id names
   * the server and the tick, so a repeat deduplicates. Returns how many were enqueued.
   */
  async fireLocal(): Promise<number> {
    const server = this.options.localServer;
    if (!server || this.local.size === 0) return 0;
    const now = await this.store.now();
    let fired = 0;
    for (const [name, entry] of this.local) {
      // A next tick computed while the clock was ahead: recomputed from now (store/clock-reanchor.ts).
      const moved = reanchoredNextAt({ ...entry.schedule, nextAt: entry.nextAt, updatedAt: entry.writtenAt }, now);
      if (moved !== null) Object.assign(entry, { nextAt: moved, writtenAt: now });
      if (entry.nextAt === null || entry.nextAt > now) continue;
      const tickIso = new Date(entry.nextAt).toISOString();
      entry.nextAt = nextFireAfter(entry.schedule, now);
      entry.writtenAt = now;
      const [result] = await this.store.commit([
        {
          verb: "enqueue",
          request: {
            id: `cron:${name}@${server}:${tickIso}`,
            dedupe: true,
            workflow: name,
            queue: localQueue(entry.info.queue, server),
            payload: "{}",
            maxAttempts: entry.info.maxAttempts,
            backoff: entry.info.backoff,
            options: JSON.stringify({ scheduledAt: tickIso, server }),
          },
        },
      ]);
      if (result?.ok && !result.enqueued?.deduplicated) fired++;
    }
    return fired;
  }

  /** Starts ticking. */
  start(): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops ticking, waits for a tick in progress, and hands leadership over. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    if (this.leading) {
      this.setLeading(false);
      await this.store.resign(SCHEDULER_LEADERSHIP, this.holder).catch(() => {});
    }
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.options.onLeadership?.(leading);
  }

  /** One pass: due cron ticks, then retention if due. Safe to call concurrently. */
  tick(): Promise<void> {
    this.ticking ??= this.doTick().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async doTick(): Promise<void> {
    try {
      if ((await this.fireLocal()) > 0) this.options.onEnqueued?.();
      this.setLeading(await this.store.lead(SCHEDULER_LEADERSHIP, this.holder, this.leaderTtlMs));
      this.leadershipAt = Date.now();
      this.leadershipMono = performance.now();
      this.lastError = null;
      if (!this.leading) return;
      if ((await this.fireDue()) > 0) this.options.onEnqueued?.();
      if ((await this.reanchorIfClockWentBack()) > 0) this.options.onEnqueued?.();
      const now = performance.now();
      const since = this.lastRetention === null ? Infinity : now - this.lastRetention;
      const keepMs = this.keepMs;
      if (keepMs !== null && since >= this.options.retentionEveryMs) {
        this.lastRetention = now;
        await this.retention(keepMs);
      }
    } catch (err) {
      const text = String((err as Error)?.message ?? err);
      const now = performance.now();
      if (this.lastError?.text === text && now - this.lastError.at < ERROR_REPEAT_MS) return;
      this.lastError = { text, at: now };
      this.options.onError?.(err);
    }
  }

  /**
   * Re-anchors due times written by a clock since set back (`Store.reanchorDueTimes`,
   * `store/clock-reanchor.ts`): on the first tick as leader (the clock may have been set back
   * while nothing ran), at once when this process sees its wall clock go back against the
   * monotonic one, and every minute otherwise (another process's clock, the database's). Returns
   * how many runs and schedules moved.
   */
  private async reanchorIfClockWentBack(): Promise<number> {
    const wall = Date.now();
    const mono = performance.now();
    const seen = this.lastSeen;
    this.lastSeen = { wall, mono };
    const wentBack = seen !== null && wall - seen.wall < mono - seen.mono - CLOCK_BACK_TOLERANCE_MS;
    const stale = this.lastReanchor === null || mono - this.lastReanchor >= REANCHOR_EVERY_MS;
    if (!wentBack && !stale) return 0;
    this.lastReanchor = mono;
    return this.store.reanchorDueTimes();
  }

  /** Enqueues one run per due schedule (missed ticks collapse into one), returns how many. */
  async fireDue(): Promise<number> {
    const now = await this.store.now();
    const due = (await this.store.listSchedules()).filter((s) => !s.paused && s.nextAt !== null && s.nextAt <= now);
    if (due.length === 0) return 0;
    const infos = new Map((await this.store.listWorkflows()).map((w) => [w.name, w]));
    let fired = 0;
    for (const s of due) {
      const wf = infos.get(s.workflow);
      const tick = s.nextAt!;
      const tickIso = new Date(tick).toISOString();
      const ok = await this.store.fireSchedule({
        workflow: s.workflow,
        expectedNextAt: tick,
        nextAt: nextFireAfter(s, now),
        run: {
          id: `cron:${s.workflow}:${tickIso}`,
          dedupe: true,
          workflow: s.workflow,
          queue: wf?.queue ?? "default",
          payload: "{}",
          maxAttempts: wf?.maxAttempts ?? 3,
          backoff: wf?.backoff ?? { base: 1_000, max: 3_600_000 },
          options: JSON.stringify({ scheduledAt: tickIso }),
        },
      });
      if (ok) fired++;
    }
    return fired;
  }

  /**
   * Deletes finished runs older than `retentionMs`, paced (`core/retention-pace.ts`): each
   * transaction sized to take about 15 ms (at most `retentionBatch` runs), and a rest twice as long
   * as it took before the next, so claims never wait long behind it. Stops early when the
   * scheduler is stopped (the next retention goes on). Returns how many.
   */
  async retention(retentionMs: number): Promise<number> {
    const cutoff = (await this.store.now()) - retentionMs;
    const pace = defaultRetentionPace(this.options.retentionBatch);
    let batch = pace.minBatch;
    let total = 0;
    for (;;) {
      const t0 = performance.now();
      const n = await this.store.deleteFinished(cutoff, batch);
      const elapsed = performance.now() - t0;
      total += n;
      if (n < batch || this.stopping) return total;
      batch = nextRetentionBatch(batch, elapsed, pace);
      await new Promise((r) => setTimeout(r, retentionRestMs(elapsed, pace)));
    }
  }
}
