/**
 * Migration 7: who owns each cron schedule (`store/schedule-sync.ts`): `release` for the ones
 * `sluice deploy` publishes, `process` for those a process registers from its own code or its
 * external workers. A sync replaces only its owner's schedules. Existing rows are `process`'s.
 */
export const sql = /* sql */ `
ALTER TABLE schedules ADD COLUMN owner text NOT NULL DEFAULT 'process';
`;
