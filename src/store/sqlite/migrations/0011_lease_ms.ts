/**
 * Migration 11: `runs.lease_ms`, the length of the current lease as the claim or the last renewal
 * asked for it (written with `lease_expires_at`), and `runs.lease_noticed_at`, when a reclaim found
 * the lease written by a clock ahead (cleared by every claim and renewal). With them a lease
 * written ahead can be told from one renewed on the right clock, and a dead worker's from a live
 * one's (`store/clock-reanchor.ts` `leaseAheadAction`). Rows leased before this migration keep
 * NULL and are left alone.
 */
export const sql = /* sql */ `
ALTER TABLE runs ADD COLUMN lease_ms INTEGER;
ALTER TABLE runs ADD COLUMN lease_noticed_at INTEGER;
`;
