/**
 * Cancelling a selective run (a `sluice:pipeline-plan` run) gracefully, as a backfill is
 * cancelled: no new step starts, the step already running finishes (so a resume does not
 * redo it), then the plan is cancelled. The plan checks the same cancel flag as a
 * backfill's plans, keyed by its own id, before each step.
 */
import { isActive } from "../../core/run-status.js";
import { type CancelDeps, type CancelOptions, cancelGracefully } from "./backfill-cancel.js";

/**
 * Cancels plan `id` gracefully; resolves once it is cancelled (or had finished). Returns
 * how many running steps were let finish and whether the grace period ran out.
 */
export function cancelPlan(
  deps: CancelDeps,
  id: string,
  reason: string,
  options: CancelOptions = {},
): Promise<{ finishedSteps: number; graceExpired: boolean }> {
  return cancelGracefully(
    deps,
    id,
    reason,
    options,
    async () => {
      const plan = await deps.store.getRun(id);
      if (!plan || !isActive(plan.status)) return { finished: true, steps: [] };
      return { finished: false, steps: await deps.store.listRuns({ parentId: id, limit: 1_000 }) };
    },
    (s) => s.status === "running" || s.status === "waiting",
    async () => {
      const plan = await deps.store.getRun(id);
      if (plan && isActive(plan.status)) await deps.cancel(id, reason);
    },
  );
}
