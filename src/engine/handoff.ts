/**
 * Handing new runs to a waiting out-of-process worker in their enqueue transaction.
 *
 * The built-in worker reserves free slots when this process enqueues (`Worker.reserve`),
 * so a new run is created already leased to it: one commit instead of two. An external
 * worker's long-polling claim (the worker protocol) gets the same through a
 * {@link RunTaker}: while its claim waits, it offers slots for the workflows it serves;
 * {@link Handoff.assign} marks the requests (`claimFor`), and once the enqueue commit is
 * done {@link Handoff.settle} gives each taker exactly the runs created leased to it
 * (none when the commit failed, the id deduplicated or the run starts later).
 */
import type { ClaimedRun, CommandResult, EnqueueRequest } from "../store/types.js";

/** Slots a taker promised for one enqueue; `settle` is called exactly once. */
export interface TakerSlots {
  workerId: string;
  leaseMs: number;
  count: number;
  /** The runs created leased to this taker (at most `count`; none after a failed commit). */
  settle(claims: ClaimedRun[]): void;
}

/** Something that takes new runs in their enqueue transaction (a waiting external claim). */
export interface RunTaker {
  /** Promises up to `wanted` slots for new runs of `workflow` in `queue`, or null. */
  reserve(wanted: number, workflow: string, queue: string): TakerSlots | null;
}

/** Requests `from` up to `to` (exclusive) were marked for `slots`. */
export interface Assignment {
  slots: TakerSlots;
  from: number;
  to: number;
}

/** The engine's registered takers. */
export class Handoff {
  private readonly takers = new Set<RunTaker>();

  /** Adds a taker; returns how to remove it. */
  add(taker: RunTaker): () => void {
    this.takers.add(taker);
    return () => this.takers.delete(taker);
  }

  /** Marks requests from index `start` on with `claimFor` of takers with free slots. */
  assign(requests: EnqueueRequest[], start: number, workflow: string): Assignment[] {
    const out: Assignment[] = [];
    let next = start;
    for (const taker of this.takers) {
      if (next >= requests.length) break;
      const slots = taker.reserve(requests.length - next, workflow, requests[next]!.queue);
      if (!slots) continue;
      if (slots.count <= 0) {
        slots.settle([]);
        continue;
      }
      const to = next + slots.count;
      for (let i = next; i < to; i++) requests[i]!.claimFor = { workerId: slots.workerId, leaseMs: slots.leaseMs };
      out.push({ slots, from: next, to });
      next = to;
    }
    return out;
  }

  /**
   * Gives each taker the runs created leased to it; `results` null when the commit
   * failed. Returns how many runs were handed over.
   */
  static settle(assigned: Assignment[], results: CommandResult[] | null): number {
    let handed = 0;
    for (const a of assigned) {
      const claims: ClaimedRun[] = [];
      for (let i = a.from; results && i < a.to; i++) {
        const r = results[i];
        if (r?.ok && r.enqueued?.claimed) claims.push(r.enqueued.claimed);
      }
      handed += claims.length;
      a.slots.settle(claims);
    }
    return handed;
  }
}
