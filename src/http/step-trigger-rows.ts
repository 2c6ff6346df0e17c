/**
 * `GET /api/triggers`' `pipelineTriggers` (pure): the pipelines' schedule and webhook rows,
 * each schedule with its next run. The scheduler's record of the step's schedule wins (it
 * knows a pause and the tick it will fire next); without one (no scheduler in this process
 * yet) the next run is computed from the cron, in the schedule's time zone.
 */
import { type CronSchedule, nextFireAfter } from "../core/cron.js";
import type { StepTriggerView } from "../pipeline/runtime/step-triggers.js";
import type { ScheduleRecord } from "../store/types.js";

/** A step's schedule or webhook row as the API shows it. */
export interface StepTriggerRow extends StepTriggerView {
  /** A schedule's next run (ISO), null for a webhook, a paused schedule or one that never fires again. */
  readonly nextAt: string | null;
  /** True when the schedule is paused (on the Schedules page); false for a webhook. */
  readonly paused: boolean;
}

function computedNext(schedule: CronSchedule, now: number): number | null {
  try {
    return nextFireAfter(schedule, now);
  } catch {
    return null;
  }
}

/** The rows of `steps` with their next runs at time `now`, given the store's schedules. */
export function stepTriggerRows(
  steps: readonly StepTriggerView[],
  schedules: readonly ScheduleRecord[],
  now: number,
): StepTriggerRow[] {
  const byWorkflow = new Map(schedules.map((s) => [s.workflow, s]));
  return steps.map((t) => {
    if (!t.schedule) return { ...t, nextAt: null, paused: false };
    const kept = byWorkflow.get(t.script);
    const paused = kept?.paused ?? false;
    const next = paused ? null : kept ? kept.nextAt : computedNext(t.schedule, now);
    return { ...t, nextAt: next === null ? null : new Date(next).toISOString(), paused };
  });
}
