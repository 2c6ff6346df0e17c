/** The per-event lock that buffered signals and parked waits share (Postgres). */
import type pg from "pg";

/**
 * Serialises signals and parks on one event for the rest of the transaction, so a buffered
 * signal and a `waitFor` parking at the same moment meet exactly once (each sees the other's
 * commit). Several events are locked in sorted order (no deadlock between two parks).
 */
export async function lockSignalEvents(c: pg.ClientBase, events: readonly string[]): Promise<void> {
  for (const event of [...new Set(events)].sort())
    await c.query("SELECT pg_advisory_xact_lock(hashtextextended('sluice-signal:' || $1, 0))", [event]);
}
