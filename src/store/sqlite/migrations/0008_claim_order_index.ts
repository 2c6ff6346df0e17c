/**
 * Migration 8: the claim order as an index (as Postgres' migration 3), so that the due-run
 * query (`due.ts`) reads due runs of one priority in claim order and stops at its limit,
 * however many runs are due or parked (a timer storm, a long history of sleeping runs).
 */
export const sql = /* sql */ `
CREATE INDEX runs_claim_order ON runs (priority DESC, ready_at, seq) WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting');
`;
