/**
 * Migration 5: what enqueue checks against a published workflow — its parameters
 * (workflows as code) — and when its file was removed (`sluice dev` reload), so a
 * removed workflow is refused instead of queued for no one.
 */
export const sql = /* sql */ `
ALTER TABLE workflows ADD COLUMN params TEXT;
ALTER TABLE workflows ADD COLUMN removed_at INTEGER;
`;
