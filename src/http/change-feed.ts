/**
 * Change notifications for live views (runs list, run page, log streams): run events
 * of this engine (a claim started or settled, a lease lost, new work) plus commits of
 * other processes (`Store.watch`), batched so a burst of changes becomes one message.
 * Listens only while someone is subscribed.
 */
import type { EngineEvents } from "../engine/events.js";
import type { RunRecord, Store } from "../store/types.js";

/** One batch of changes: the runs known to have changed (empty when only "something changed" is known). */
export interface Change {
  runs: string[];
}

/** See the module comment. */
export class ChangeFeed {
  private readonly subscribers = new Set<(change: Change) => void>();
  private pending: Set<string> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private detach: (() => void) | null = null;

  constructor(
    private readonly source: { events: EngineEvents; store: Pick<Store, "watch"> },
    private readonly batchMs = 100,
  ) {}

  /** Calls `fn` with each batch of changes; returns the unsubscribe function. */
  subscribe(fn: (change: Change) => void): () => void {
    this.subscribers.add(fn);
    if (!this.detach) this.attach();
    return () => {
      this.subscribers.delete(fn);
      if (this.subscribers.size === 0) this.stop();
    };
  }

  /** Resolves at the next change, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.subscribe(done);
      if (signal?.aborted) done();
      else signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Number of current subscribers (tests check that streams clean up). */
  get size(): number {
    return this.subscribers.size;
  }

  private attach(): void {
    const { events, store } = this.source;
    const onRun = (idOrRun: string | RunRecord) => this.note(typeof idOrRun === "string" ? idOrRun : idOrRun.id);
    const onAny = () => this.note(null);
    events.on("started", onRun);
    events.on("settled", onRun);
    events.on("reclaimed", onRun);
    events.on("fenced", onRun);
    events.on("work", onAny);
    const unwatch = store.watch(onAny);
    this.detach = () => {
      events.off("started", onRun);
      events.off("settled", onRun);
      events.off("reclaimed", onRun);
      events.off("fenced", onRun);
      events.off("work", onAny);
      unwatch();
    };
  }

  private stop(): void {
    this.detach?.();
    this.detach = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private note(runId: string | null): void {
    this.pending ??= new Set();
    if (runId !== null) this.pending.add(runId);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      const runs = [...(this.pending ?? [])];
      this.pending = null;
      this.timer = null;
      for (const fn of [...this.subscribers]) fn({ runs });
    }, this.batchMs);
    this.timer.unref?.();
  }
}
