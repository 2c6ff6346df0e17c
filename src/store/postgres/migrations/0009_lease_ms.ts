/**
 * Migration 9: `runs.lease_ms`, the length of the current lease as the claim or the last renewal
 * asked for it (written with `lease_expires_at`), and `runs.lease_noticed_at`, when a reclaim found
 * the lease written while the database server's clock was ahead (cleared by every claim and
 * renewal). With them a lease written ahead can be told from one renewed on the right clock, and a
 * dead worker's from a live one's (`store/clock-reanchor.ts` `leaseAheadAction`). Rows leased
 * before this migration keep NULL and are left alone. Nullable columns without a default rewrite
 * nothing.
 */
export const sql = /* sql */ `
ALTER TABLE runs ADD COLUMN lease_ms bigint;
ALTER TABLE runs ADD COLUMN lease_noticed_at bigint;
`;
