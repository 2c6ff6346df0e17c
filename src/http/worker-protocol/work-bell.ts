/**
 * Wakes long-polling claims of external workers the moment work may be claimable:
 * this engine's `work` events (an enqueue, a signal, a completion here) and commits
 * of other processes (`Store.watch`). Listens only while a claim is waiting.
 */
import type { EngineEvents } from "../../engine/events.js";
import type { Store } from "../../store/types.js";

/** See the module comment. */
export class WorkBell {
  private readonly waiters = new Set<() => void>();
  private detach: (() => void) | null = null;

  constructor(private readonly source: { events: EngineEvents; store: Pick<Store, "watch"> }) {}

  /** Resolves at the next ring, after `ms`, or when `signal` aborts, whichever is first. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.waiters.delete(done);
        if (this.waiters.size === 0) this.stop();
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      if (signal?.aborted) return done();
      signal?.addEventListener("abort", done);
      this.waiters.add(done);
      this.start();
    });
  }

  /** Number of claims waiting now. */
  get waiting(): number {
    return this.waiters.size;
  }

  private ring = (): void => {
    for (const w of [...this.waiters]) w();
  };

  private start(): void {
    if (this.detach) return;
    const { events, store } = this.source;
    events.on("work", this.ring);
    const unwatch = store.watch(this.ring);
    this.detach = () => {
      events.off("work", this.ring);
      unwatch();
    };
  }

  private stop(): void {
    this.detach?.();
    this.detach = null;
  }
}
