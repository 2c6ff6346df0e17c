/** How the release pages word a release's changes (pure). */
import type { ReleaseChanges } from "../../../core/release";

/** The kinds of change a release records, in the order they are shown. */
export const CHANGE_KINDS = ["workflows", "schedules", "triggers", "files"] as const;

/** One kind's counts as `+a ~c -r`, or null when that kind did not change. */
function changeCounts(changes: ReleaseChanges, kind: (typeof CHANGE_KINDS)[number]): string | null {
  const set = changes[kind];
  if (!set) return null;
  const parts = [
    set.added.length ? `+${set.added.length}` : "",
    set.changed.length ? `~${set.changed.length}` : "",
    set.removed.length ? `−${set.removed.length}` : "",
  ].filter(Boolean);
  return parts.length ? `${parts.join(" ")} ${kind}` : null;
}

/** A release's changes in a few words, e.g. `+1 workflows · ~2 files`; `no changes` when nothing differs. */
export function changeSummary(changes: ReleaseChanges): string {
  const parts = CHANGE_KINDS.map((k) => changeCounts(changes, k)).filter((p): p is string => p !== null);
  return parts.length ? parts.join(" · ") : "no changes";
}
