/**
 * Cancelling a selective run (a `sluice:pipeline-plan` run) gracefully, as a backfill is
 * cancelled: no new step starts, the step already running finishes (so a resume does not
 * redo it), then the plan is cancelled. The plan checks the same cancel flag as a
 * backfill's plans, keyed by its own id, before each step.
 */
import type { RunRecord } from "../../store/types.js";
import { CANCEL_PREFIX, type CancelDeps, type CancelOptions } from "./backfill-cancel.js";

const ACTIVE = new Set(["pending", "running", "waiting"]);

/** Whether a run status is still active (pending, running or waiting). */
export function isActive(status: string): boolean {
  return ACTIVE.has(status);
}

/**
 * Cancels plan `id` gracefully; resolves once it is cancelled (or had finished). Returns
 * how many running steps were let finish and whether the grace period ran out.
 */
export async function cancelPlan(
  deps: CancelDeps,
  id: string,
  reason: string,
  options: CancelOptions = {},
): Promise<{ finishedSteps: number; graceExpired: boolean }> {
  await deps.store.kvPut(`${CANCEL_PREFIX}${id}`, JSON.stringify({ reason, at: Date.now() }));
  const deadline = Date.now() + (options.graceMs ?? 60_000);
  const waitedFor = new Set<string>();
  let graceExpired = false;
  for (;;) {
    const plan = await deps.store.getRun(id);
    if (!plan || !isActive(plan.status)) return { finishedSteps: waitedFor.size, graceExpired };
    const steps: RunRecord[] = await deps.store.listRuns({ parentId: id, limit: 1_000 });
    for (const s of steps) if (s.status === "pending") await deps.cancel(s.id, reason);
    const running = steps.filter((s) => s.status === "running" || s.status === "waiting");
    for (const r of running) waitedFor.add(r.id);
    if (running.length === 0) break;
    if (Date.now() > deadline) {
      graceExpired = true;
      break;
    }
    options.onWait?.(running);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
  const plan = await deps.store.getRun(id);
  if (plan && isActive(plan.status)) await deps.cancel(id, reason);
  return { finishedSteps: waitedFor.size, graceExpired };
}
