/**
 * Migration 7.
 *
 * Releases (`sluice deploy`): each row is one atomically published version of a project, numbered
 * from 1; the newest is the current one. `manifest` lists every file by content hash, every module
 * with the bundle hash its runs pin to, the workflow definitions and the pipeline graphs (JSON, see
 * `core/release.ts`); the file texts and bundles live in `bundles` under their hashes.
 */
export const sql = /* sql */ `
CREATE TABLE releases (
  id          INTEGER PRIMARY KEY,
  created_at  INTEGER NOT NULL,
  created_by  TEXT,
  rollback_of INTEGER,
  changes     TEXT    NOT NULL,
  manifest    TEXT    NOT NULL
);
`;
