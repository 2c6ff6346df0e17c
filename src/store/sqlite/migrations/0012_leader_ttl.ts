/**
 * Migration 12: `leaders.ttl_ms`, the length the holder asked for at its last lead (written with
 * `expires_at`), and `leaders.noticed_at`, when another holder found the leadership written by a
 * clock ahead (cleared by every renewal). With them a leadership taken by a process whose clock is
 * ahead, and left when that process died, ends about one length after it is noticed instead of
 * when the right clock catches up (`store/leadership-rule.ts`). Rows written before this migration
 * keep NULL and are left alone.
 */
export const sql = /* sql */ `
ALTER TABLE leaders ADD COLUMN ttl_ms INTEGER;
ALTER TABLE leaders ADD COLUMN noticed_at INTEGER;
`;
