/**
 * Sluice's own workflows (`sluice:pipeline-plan`, `sluice:pipeline-backfill`): registered like
 * any other, but started by Sluice (`sluice pipeline run`, `sluice pipeline backfill`) with a
 * payload it builds, never enqueued by name by a user. They share one name prefix.
 */

/** The name prefix of Sluice's own workflows. */
const INTERNAL_PREFIX = "sluice:";

/** Whether `name` is one of Sluice's own workflows (left out of what users are offered). */
export function isInternalWorkflow(name: string): boolean {
  return name.startsWith(INTERNAL_PREFIX);
}
