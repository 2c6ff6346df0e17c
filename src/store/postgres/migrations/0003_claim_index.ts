/**
 * Migration 3: an index in claim order, so a claim walks the runnable runs by
 * priority and age and stops after its LIMIT instead of sorting every due run.
 */
export const sql = /* sql */ `
CREATE INDEX runs_claim_order ON runs (priority DESC, ready_at, seq) WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting');
`;
