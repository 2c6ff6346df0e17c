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

/**
 * Everyone awaiting a run's outcome. Local completions are announced by the
 * `settled` event (dispatched by run id, so many waiters cost nothing extra);
 * completions made by other processes are found by one shared poll, which reads
 * the waited-on runs only after the store reported a change from outside this
 * process (`Store.watch`), and every {@link FULL_POLL_EVERY}th tick regardless.
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
      if (this.waiting.has(runId)) this.check(runId);
    });
    events.on("settled", (runId, finished) => {
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
      if (!this.heldHere(id)) this.check(id);
    });
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
    this.unwatch = this.store.watch(() => (this.changed = true), { othersOnly: true, notifiedOnly: true });
    this.poll = setInterval(() => {
      if (!this.changed && ++this.ticks % FULL_POLL_EVERY !== 0) return;
      this.changed = false;
      void this.pollAll();
    }, this.pollMs);
  }

  /** Rejects every waiter with `reason(runId)` and stops polling (the engine is stopping). */
  close(reason: (runId: string) => SluiceError): void {
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
