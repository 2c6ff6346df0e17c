import { RunNotFoundError, SluiceError, WaitTimeoutError } from "../sdk/errors.js";
import { isTerminal, type RunRecord, type Store } from "../store/types.js";
import type { EngineEvents } from "./events.js";

interface Waiter {
  resolve: (run: RunRecord) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | null;
}

/** Every this many poll ticks, waited-on runs are read even if the store saw no outside change. */
const FULL_POLL_EVERY = 10;

/** Runs created here are remembered this long (ms) for a waiter to skip their first read. */
const CREATED_KEPT_MS = 5_000;

/** At most this many runs created here are remembered (the oldest are forgotten first). */
const CREATED_KEPT_MAX = 100_000;

/**
 * Everyone awaiting a run's outcome. Local completions are announced by the
 * `settled` event (dispatched by run id, so many waiters cost nothing extra);
 * completions made by other processes are found by one shared poll, which reads
 * the waited-on runs only after the store reported a change from outside this
 * process (`Store.watch`), and every {@link FULL_POLL_EVERY}th tick regardless.
 *
 * A waiter's first read is skipped for a run this process has just created and not seen
 * settle ({@link created}), unless the store reported an outside change since its creation:
 * its local end arrives as an event, and another process's end as a change the poll reads.
 * That first read of runs just enqueued was 6.6 % of W3's CPU, only to learn that none had finished.
 *
 * The poll keeps the process alive while anyone waits: a CLI `enqueue --wait` has
 * nothing else on its event loop (its run finishes in another process), so an
 * unreferenced poll would let Node exit at once with the run still pending.
 */
export class RunWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly queued = new Set<string>();
  private flushScheduled = false;
  private poll: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  /** The store reported a change since the last poll. */
  private changed = false;
  private ticks = 0;
  /** Outside changes the store reported since this object was made (while it watched). */
  private outsideChanges = 0;
  /** Runs created here and not yet seen settle: id → {@link outsideChanges} and time at creation. */
  private readonly recent = new Map<string, { changes: number; at: number }>();
  private unwatchRecent: (() => void) | null = null;
  private sweep: NodeJS.Timeout | null = null;

  /**
   * @param heldHere True while a claim of the run is executing in this process and its end has
   *   not been announced yet: its `settled` event is still to come, so a new waiter needs no read.
   */
  constructor(
    private readonly store: Store,
    events: EngineEvents,
    private readonly pollMs = 500,
    private readonly heldHere: (runId: string) => boolean = () => false,
  ) {
    // A reclaim that failed the run's last attempt finishes it: waiters see it at once.
    events.on("reclaimed", (runId) => {
      this.recent.delete(runId);
      if (this.waiting.has(runId)) this.check(runId);
    });
    // A fenced claim lost its run to another taker: a waiter reads it from now on.
    events.on("fenced", (runId) => this.recent.delete(runId));
    events.on("settled", (runId, finished) => {
      this.recent.delete(runId);
      // A cancel here also cancelled the run's unfinished children, which no event names.
      if (finished?.status === "cancelled") this.changed = true;
      const set = this.waiting.get(runId);
      if (!set) return;
      // A terminal write made here hands over the run: no read back.
      if (finished && isTerminal(finished.status))
        for (const w of [...set]) this.settle(runId, w, () => w.resolve(finished));
      else this.check(runId);
    });
  }

  /** Resolves with the run once it is finished. @throws RunNotFoundError, WaitTimeoutError */
  wait(id: string, timeoutMs?: number): Promise<RunRecord> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: null };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(
          () => this.settle(id, waiter, () => reject(new WaitTimeoutError(id, timeoutMs))),
          timeoutMs,
        );
      }
      let set = this.waiting.get(id);
      if (!set) this.waiting.set(id, (set = new Set()));
      set.add(waiter);
      this.ensurePoll();
      // A run executing here is neither finished nor missing: its end arrives as an event.
      // Nor is one created here since when nothing changed from outside: its end arrives as
      // an event (finished here) or as an outside change the poll reads (finished elsewhere).
      if (!this.heldHere(id) && !this.createdUnchanged(id)) this.check(id);
    });
  }

  /**
   * Records runs this process has just created (not deduplicated: a deduplicated run may be
   * finished already), so that a waiter on them skips its first read. Watches the store from
   * here on, so that an end written by another process before anyone waits is not missed.
   */
  created(ids: readonly string[]): void {
    if (ids.length === 0) return;
    // Notified changes only, as the poll's watch: Postgres's safety-net poll says nothing changed. A
    // lost NOTIFY delays such an end to the poll's full read (every FULL_POLL_EVERY ticks), not for ever.
    this.unwatchRecent ??= this.store.watch(() => this.outsideChanges++, {
      othersOnly: true,
      notifiedOnly: true,
      catchUp: true,
    });
    const at = Date.now();
    for (const id of ids) {
      this.recent.delete(id);
      this.recent.set(id, { changes: this.outsideChanges, at });
    }
    for (const id of this.recent.keys()) {
      if (this.recent.size <= CREATED_KEPT_MAX) break;
      this.recent.delete(id);
    }
    this.sweep ??= setTimeout(() => this.forgetOld(), CREATED_KEPT_MS).unref();
  }

  /** Whether `id` was created here with no outside change reported since (forgets it either way). */
  private createdUnchanged(id: string): boolean {
    const mark = this.recent.get(id);
    if (!mark) return false;
    this.recent.delete(id);
    return mark.changes === this.outsideChanges && Date.now() - mark.at < CREATED_KEPT_MS;
  }

  /** Forgets runs created more than {@link CREATED_KEPT_MS} ago; stops watching when none is left. */
  private forgetOld(): void {
    this.sweep = null;
    const cutoff = Date.now() - CREATED_KEPT_MS;
    for (const [id, mark] of this.recent) {
      if (mark.at > cutoff) break;
      this.recent.delete(id);
    }
    if (this.recent.size > 0) this.sweep = setTimeout(() => this.forgetOld(), CREATED_KEPT_MS).unref();
    else this.stopWatchingRecent();
  }

  private stopWatchingRecent(): void {
    if (this.sweep) clearTimeout(this.sweep);
    this.sweep = null;
    this.unwatchRecent?.();
    this.unwatchRecent = null;
  }

  private settle(id: string, waiter: Waiter, fn: () => void): void {
    const set = this.waiting.get(id);
    if (!set?.delete(waiter)) return;
    if (waiter.timer) clearTimeout(waiter.timer);
    if (set.size === 0) this.waiting.delete(id);
    if (this.waiting.size === 0 && this.poll) {
      clearInterval(this.poll);
      this.poll = null;
      this.unwatch?.();
      this.unwatch = null;
    }
    fn();
  }

  private ensurePoll(): void {
    if (this.poll) return;
    this.changed = false;
    this.ticks = 0;
    // Changes made here are announced by events (as on SQLite, whose data version never moves for
    // its own commits), and every FULL_POLL_EVERY-th tick is this poll's own safety net: re-reading
    // every waited-on run at each of this process's own commits cost more than the runs themselves.
    this.unwatch = this.store.watch(() => (this.changed = true), {
      othersOnly: true,
      notifiedOnly: true,
      catchUp: true,
    });
    this.poll = setInterval(() => {
      if (!this.changed && ++this.ticks % FULL_POLL_EVERY !== 0) return;
      this.changed = false;
      void this.pollAll();
    }, this.pollMs);
  }

  /** Rejects every waiter with `reason(runId)` and stops polling (the engine is stopping). */
  close(reason: (runId: string) => SluiceError): void {
    this.recent.clear();
    this.stopWatchingRecent();
    for (const [id, set] of [...this.waiting]) for (const w of [...set]) this.settle(id, w, () => w.reject(reason(id)));
  }

  /** Finds runs finished by other processes: one bulk read per chunk of waited-on ids. */
  private async pollAll(): Promise<void> {
    for (const id of this.waiting.keys()) this.queued.add(id);
    await this.flush();
  }

  /** Queues a check of `id`; all checks queued in one event-loop turn share one read. */
  private check(id: string): void {
    this.queued.add(id);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const ids = [...this.queued].filter((id) => this.waiting.has(id));
    this.queued.clear();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      let runs: RunRecord[];
      try {
        runs = await this.store.getRuns(chunk);
      } catch (err) {
        for (const id of chunk)
          for (const w of [...(this.waiting.get(id) ?? [])]) this.settle(id, w, () => w.reject(err));
        continue;
      }
      const found = new Map(runs.map((r) => [r.id, r]));
      for (const id of chunk) {
        const run = found.get(id);
        const set = this.waiting.get(id);
        if (!set) continue;
        if (!run) for (const w of [...set]) this.settle(id, w, () => w.reject(new RunNotFoundError(id)));
        else if (isTerminal(run.status)) for (const w of [...set]) this.settle(id, w, () => w.resolve(run));
      }
    }
  }
}
