/**
 * The long-polling claims of external workers that are waiting right now, offered to
 * the engine as takers of new runs (`engine/handoff.ts`): a run enqueued through this
 * engine while a claim for its workflow waits is created already leased to that
 * claim, in the enqueue's own commit, and the claim answers with it at once.
 *
 * A waiter's life: open (taking runs, up to its `limit`) → closed when its wait ends
 * (rung, timed out, aborted, or a handoff arrived) → it answers once every slot it
 * promised is settled (the enqueue commit is done, or failed).
 */
import type { RunTaker, TakerSlots } from "../../engine/handoff.js";
import type { ClaimedRun } from "../../store/types.js";
import type { ClaimMessage } from "./messages.js";

interface Waiter {
  msg: ClaimMessage;
  open: boolean;
  /** Slots promised to enqueues whose commit is not settled yet. */
  pending: number;
  claims: ClaimedRun[];
  /** Ends the wait early (a handoff arrived). */
  wake: AbortController;
  settled: (() => void) | null;
}

/** See the module comment. */
export class WaitingClaims implements RunTaker {
  private readonly waiters = new Set<Waiter>();

  /** @param server this engine's server name: runs in other servers' local queues (`group@server`) are not taken */
  constructor(private readonly server: string | null) {}

  /**
   * Keeps `msg` open for handoffs while `sleep` runs (it gets a signal that aborts when
   * a handoff arrived), then returns the runs handed to it (often none).
   */
  async wait(msg: ClaimMessage, sleep: (wake: AbortSignal) => Promise<void>): Promise<ClaimedRun[]> {
    const w: Waiter = { msg, open: true, pending: 0, claims: [], wake: new AbortController(), settled: null };
    this.waiters.add(w);
    try {
      await sleep(w.wake.signal);
    } finally {
      w.open = false;
      this.waiters.delete(w);
    }
    if (w.pending > 0) await new Promise<void>((resolve) => (w.settled = resolve));
    return w.claims;
  }

  /** Number of claims waiting now. */
  get size(): number {
    return this.waiters.size;
  }

  reserve(wanted: number, workflow: string, queue: string): TakerSlots | null {
    for (const w of this.waiters) {
      // A claim for one code version takes no handoffs (a new run is pinned at enqueue to the
      // workflow's latest registered version, maybe not this one): it claims from the store.
      if (!w.open || w.msg.version || !w.msg.workflows.includes(workflow) || !this.serves(w.msg, queue)) continue;
      const count = Math.min(wanted, w.msg.limit - w.pending - w.claims.length);
      if (count <= 0) continue;
      w.pending += count;
      return {
        workerId: w.msg.workerId,
        leaseMs: w.msg.leaseMs,
        count,
        settle: (claims) => {
          w.claims.push(...claims);
          w.pending -= count;
          if (claims.length > 0) w.wake.abort();
          if (w.pending === 0) w.settled?.();
        },
      };
    }
    return null;
  }

  private serves(msg: ClaimMessage, queue: string): boolean {
    if (msg.groups) return msg.groups.includes(queue);
    const at = queue.indexOf("@");
    return at < 0 || (this.server !== null && queue.slice(at + 1) === this.server);
  }
}
