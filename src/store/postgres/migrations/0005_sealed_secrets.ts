/**
 * Migration 5: secrets are no longer kept in plain text. The resume-link secret that earlier
 * versions stored as `meta` key `secret:<name>` moves to the key-value records as
 * `legacy-secret:<name>`; the engine seals it under the process's secret key on first use
 * (`engine/resume-secret.ts`) and deletes the plain copy, so links already sent keep working.
 */
export const sql = /* sql */ `
UPDATE meta SET key = 'kv:legacy-secret:' || substr(key, 8) WHERE key LIKE 'secret:%';
`;
