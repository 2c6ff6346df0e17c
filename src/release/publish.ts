/**
 * Publishing a release to a database: diff against the current release, publish atomically
 * (refused when another deploy got in first), then make the published workflow definitions and
 * cron schedules follow it, so enqueues and claims pin to the new code versions at once.
 *
 * @module
 */
import { userInfo } from "node:os";
import { nextFireAfter } from "../core/cron.js";
import { diffReleases, type ReleaseChanges, type ReleaseManifest, type ReleaseRecord } from "../core/release.js";
import { SluiceError } from "../sdk/errors.js";
import type { Store } from "../store/types.js";

/** Another release was published between reading the current one and publishing. */
export class ReleaseConflictError extends SluiceError {
  constructor(expected: number | null, current: number | null) {
    super(
      "RELEASE_CONFLICT",
      `release ${current} was published while this deploy compared against ${expected ?? "no release"}: nothing was published; run the deploy again`,
    );
  }
}

/** The current release and what a manifest changes against it. */
export interface ReleasePlan {
  current: ReleaseRecord | null;
  changes: ReleaseChanges;
}

/** Reads the current release and diffs `manifest` against it. */
export async function planRelease(store: Store, manifest: ReleaseManifest): Promise<ReleasePlan> {
  const id = await store.currentReleaseId();
  const current = id === null ? null : await store.getRelease(id);
  return { current, changes: diffReleases(current?.manifest ?? null, manifest) };
}

/** Who publishes: `SLUICE_USER`, else the operating-system user. */
export function publisher(env: NodeJS.ProcessEnv): string | null {
  if (env.SLUICE_USER) return env.SLUICE_USER;
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/**
 * Publishes `manifest` as the release after `plan.current`, then publishes its workflow
 * definitions (marking the removed ones) and replaces the release-owned cron schedules with its own
 * (schedules a process registered, e.g. for an external Go or Python worker, are left alone).
 * @throws ReleaseConflictError when another release was published since `plan` was read
 */
export async function publishRelease(
  store: Store,
  plan: ReleasePlan,
  manifest: ReleaseManifest,
  input: { blobs: Array<{ hash: string; code: string }>; createdBy: string | null; rollbackOf: number | null },
): Promise<{ id: number; createdAt: number }> {
  const expected = plan.current?.id ?? null;
  const outcome = await store.publishRelease({
    manifest: JSON.stringify(manifest),
    changes: JSON.stringify(plan.changes),
    createdBy: input.createdBy,
    rollbackOf: input.rollbackOf,
    expectedCurrent: expected,
    blobs: input.blobs,
  });
  if (!outcome.ok) throw new ReleaseConflictError(expected, outcome.current);
  await store.registerWorkflows(manifest.workflows);
  if (plan.changes.workflows.removed.length) await store.removeWorkflows(plan.changes.workflows.removed);
  const now = await store.now();
  // On a shared database, `local: true` workflows keep their cron per server (the scheduler's rule).
  const shared = store.location.kind === "server";
  await store.syncSchedules(
    manifest.workflows.flatMap((w) =>
      w.schedule && !(shared && w.local)
        ? [{ workflow: w.name, ...w.schedule, nextAt: nextFireAfter(w.schedule, now) }]
        : [],
    ),
    "release",
  );
  return { id: outcome.id, createdAt: outcome.createdAt };
}
