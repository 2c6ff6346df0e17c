/**
 * Migration 10: fewer indexes for a claim and a finish to maintain (issue 15).
 *
 * - `runs_by_status` (every run, by status) becomes `runs_active` (queued, running and parked
 *   runs only) and `runs_unsuccessful` (failed and cancelled runs only). A run that succeeds
 *   leaves `runs_active` and enters neither; listings of succeeded runs walk the table (or
 *   `runs_by_workflow`) newest first, where succeeded runs are the common case. Both predicates
 *   are written as `=` terms joined by `OR`: SQLite evaluates a partial index's predicate on
 *   every write of the row, and an `IN` list of three or more values builds a temporary table
 *   each time (three times the cost of the whole update in a measurement).
 * - `runs_leases` (running runs by lease expiry) goes: the running runs are a range of
 *   `runs_active`, as many as the workers' slots, and the reclaimer sorts them.
 * - `runs_ready` (runs by due time) goes: `runs_claim_order` holds the same runs (a run has a
 *   `ready_at` only while pending or waiting), and the next due time is read from it one
 *   priority at a time, as a claim reads its candidates.
 */
export const sql = /* sql */ `
DROP INDEX runs_by_status;
DROP INDEX runs_leases;
DROP INDEX runs_ready;
CREATE INDEX runs_active ON runs (status, seq) WHERE status = 'pending' OR status = 'running' OR status = 'waiting';
CREATE INDEX runs_unsuccessful ON runs (status, seq) WHERE status = 'failed' OR status = 'cancelled';
`;
