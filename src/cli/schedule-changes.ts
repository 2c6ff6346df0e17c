/**
 * What a folder-mode `sluice server` says when its code's schedules replace stored ones. Servers
 * on one database are meant to run the same project folder; when their folders differ, each start
 * makes its folder's schedules the database's (the last one started wins), so each schedule it
 * removed or changed is printed as a warning with the way out.
 *
 * @module
 */
import type { ScheduleChange } from "../store/schedule-sync.js";

/** The warning lines for `changes` (one per schedule, then the hint once). */
export function scheduleChangeLines(changes: readonly ScheduleChange[]): string {
  if (changes.length === 0) return "";
  const lines = changes.map((c) =>
    c.change === "removed"
      ? `warning: schedule ${c.workflow} (${c.was}) removed: no module of this folder defines it\n`
      : `warning: schedule ${c.workflow} changed from ${c.was} to ${c.now} by this folder's code\n`,
  );
  return (
    lines.join("") +
    "  (expected after an edit of this folder; otherwise another server on this database runs a different folder, and the last one started replaces the others' schedules: run the same folder everywhere, or publish it with `sluice deploy` and start servers with --release)\n"
  );
}
