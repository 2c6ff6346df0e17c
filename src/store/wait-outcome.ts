/**
 * Whether a decision may resolve a pending wait or approval: the one rule both stores
 * apply inside their `resolveWait` transaction (they only read the facts and write the
 * result). Pure.
 */
import type { ResolveWaitOutcome, ResolveWaitRequest, RunStatus } from "./types.js";

/** What a store read about the run and the step before deciding. */
export interface WaitFacts {
  run: { status: RunStatus; createdBy: string | null } | null;
  step: { kind: string; status: string; wakeAt: number | null; finishedAt: number | null } | null;
}

/**
 * The outcome of `req` given the facts at `now`: `"resolved"` means the store may write
 * the decision. A step closed at or after its deadline was closed by its timeout (a
 * decision after the deadline is refused), so deciding it again is `expired`, not
 * `already-decided`.
 */
export function waitOutcome(
  facts: WaitFacts,
  req: Pick<ResolveWaitRequest, "kind" | "creatorMayDecide" | "audit">,
  now: number,
): ResolveWaitOutcome {
  const { run, step } = facts;
  if (!run) return "not-found";
  if (!step || step.kind !== req.kind) return "not-found";
  const deadline = step.wakeAt;
  if (step.status !== "pending")
    return deadline !== null && step.finishedAt !== null && step.finishedAt >= deadline ? "expired" : "already-decided";
  if (deadline !== null && deadline <= now) return "expired";
  if (run.status !== "waiting") return "not-waiting";
  if (req.creatorMayDecide === false && run.createdBy !== null && run.createdBy === (req.audit?.actor ?? null))
    return "forbidden";
  return "resolved";
}
