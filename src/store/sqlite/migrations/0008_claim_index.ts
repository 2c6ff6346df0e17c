/**
 * Migration 9: an index in claim order (as Postgres' migration 3), so a claim reads
 * the due runs of one priority oldest first and stops after its LIMIT instead of
 * sorting every due run; runs parked with a later timer are not read at all.
 * (Numbered 9: 7 and 8 are taken by work merged alongside.)
 */
export const sql = /* sql */ `
CREATE INDEX runs_claim_order ON runs (priority, ready_at, seq) WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting');
`;
