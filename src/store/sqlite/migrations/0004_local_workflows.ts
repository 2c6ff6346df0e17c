/** Migration 4: workflows marked `local: true` (their queue and cron are kept per server on a shared database). */
export const sql = /* sql */ `
ALTER TABLE workflows ADD COLUMN local INTEGER NOT NULL DEFAULT 0;
`;
