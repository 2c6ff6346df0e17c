/** Migration 2: workflows marked `local: true` (their queue and cron are kept per server). */
export const sql = /* sql */ `
ALTER TABLE workflows ADD COLUMN local boolean NOT NULL DEFAULT false;
`;
