/**
 * Migration 11: `runs.lease_ms`, the length of the current lease as the claim or the last renewal
 * asked for it (written with `lease_expires_at`). With it a lease written by a clock that is ahead
 * can be told from one renewed on the right clock: one ending more than its length (plus the
 * tolerance) after now was written ahead (`store/clock-reanchor.ts` `reanchoredLeaseExpiresAt`).
 * Rows leased before this migration keep NULL and are left alone.
 */
export const sql = /* sql */ `
ALTER TABLE runs ADD COLUMN lease_ms INTEGER;
`;
