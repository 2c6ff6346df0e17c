/**
 * "The next successful claim restores normal operation" (seed 002): when a worker claims
 * its first run of a group, it deletes that group's lane crash record, if any. Every
 * worker does this (a lane worker, or one started by hand with `sluice worker --group g`),
 * once per group per process; it costs one read per group.
 */
import type { EngineEvents } from "../engine/events.js";
import type { RunRecord, Store } from "../store/types.js";
import { clearLaneCrash } from "./crash-record.js";
import { laneOfQueue } from "./policy.js";

/** Clears crash records on first claims; returns a function that stops listening. */
export function clearCrashOnClaim(
  store: Store,
  events: EngineEvents,
  server: string | null,
  warn: (text: string) => void,
): () => void {
  const seen = new Set<string>();
  const onStarted = (run: RunRecord) => {
    const group = laneOfQueue(run.queue, server) ?? run.queue;
    if (seen.has(group)) return;
    seen.add(group);
    void clearLaneCrash(store, group)
      .then((cleared) => {
        if (cleared) warn(`lane ${group}: claimed a run, the lane's crash record is cleared\n`);
      })
      .catch((err) => warn(`lane ${group}: could not clear its crash record (${(err as Error).message})\n`));
  };
  events.on("started", onStarted);
  return () => events.off("started", onStarted);
}
