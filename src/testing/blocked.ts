/**
 * What a waiting run waits on, read from its checkpoints: pure, so the run-to-completion loop
 * of `sluice/testing` decides from data whether skipping time can move the run on.
 */
import type { RunRecord, StepRecord } from "../store/types.js";

/** Why a waiting run cannot move on by itself: a signal with no timeout, or a human. */
export interface RunBlock {
  readonly kind: "signal" | "approval";
  /** The step key of the wait or approval. */
  readonly key: string;
  /** The event a signal wait listens for (null for an approval). */
  readonly event: string | null;
}

/** The pending waits of a run that only an outside actor can end (no timer ends them). */
export function blocksOf(steps: readonly StepRecord[]): RunBlock[] {
  return steps
    .filter((s) => s.status === "pending" && (s.kind === "approval" || (s.kind === "wait" && s.wakeAt === null)))
    .map((s) => ({ kind: s.kind === "approval" ? "approval" : "signal", key: s.key, event: s.event }));
}

/** The earliest time a queued run (waiting, or pending for later: runAt, a retry's backoff) is due by a timer, or null. */
export function nextTimer(waiting: readonly Pick<RunRecord, "readyAt">[]): number | null {
  let next: number | null = null;
  for (const r of waiting) if (r.readyAt !== null && (next === null || r.readyAt < next)) next = r.readyAt;
  return next;
}
