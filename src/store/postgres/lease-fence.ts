/**
 * The fence of a one-statement write on Postgres: the batch's leases are checked and locked
 * first, and its writes touch only the runs found live. Each lease is looked up by its own
 * index probe, in id order (the order a locking read takes rows), and the writes read the
 * outcome by the lease's position in an array. Neither step joins two sets: with a join the
 * plan follows the planner's row estimates, and when those miss a burst (a few hundred runs
 * `running` where the statistics saw none), a nested loop over the batch turned it quadratic
 * (500 leases: ≈ 120 ms instead of ≈ 5 ms).
 */
import type { Lease } from "../types.js";

/**
 * Two CTEs over the leases (`$14` run ids, `$15` tokens): `f`, one row per lease (`id`, `n` its
 * position from 1, `live` when the run is still `running` under that claim), and `m`, whose
 * `live` is the same flags as an array by position. Every lease's run is locked, live or not,
 * as the general path's locking read does, and checked on the row the lock returned (the newest,
 * when the run changed while the probe waited). The probe's only condition is the id, so its
 * plan is the id's unique index whatever the statistics say of the status (with the status in
 * it, the planner took the status index and read every running run for each lease). The `LIMIT`
 * (every lease) is for the plan cache: without it, the plan made for unknown values expects 10
 * leases, dearer than one made for a one-run batch, so Postgres planned every one-step run's
 * statement again (≈ 0.3 ms each, a sixth of W4's latency); with it, that plan expects one, and
 * is kept after the first five.
 */
export const LEASES_LOCKED = `f AS (
    SELECT l.id, l.n, COALESCE(r.status = 'running' AND r.claims = l.token, false) AS live
    FROM (SELECT x.id, x.token, x.n FROM unnest($14::text[], $15::int[]) WITH ORDINALITY x(id, token, n)
      ORDER BY x.id LIMIT cardinality($14::text[])) l
    LEFT JOIN LATERAL (SELECT r.status, r.claims FROM runs r WHERE r.id = l.id FOR UPDATE OF r) r ON true
  ), m AS (SELECT array_agg(f.live ORDER BY f.n) AS live FROM f)`;

/**
 * A condition true when the lease at `position` (an expression: the 1-based position of a
 * row's lease, as {@link leasePositions} gives them) was found live by {@link LEASES_LOCKED}.
 * Reading `m` makes the write wait for every lock of `f`.
 */
export const liveAt = (position: string): string => `COALESCE(((SELECT m.live FROM m))[${position}], false)`;

/**
 * For each of `runIds`, the 1-based position of its run's lease in `leases` (null when it has
 * none: its row is then written by nothing).
 */
export function leasePositions(leases: readonly Lease[], runIds: readonly unknown[]): (number | null)[] {
  const at = new Map<string, number>();
  leases.forEach((l, i) => at.set(l.runId, i + 1));
  return runIds.map((id) => at.get(id as string) ?? null);
}
