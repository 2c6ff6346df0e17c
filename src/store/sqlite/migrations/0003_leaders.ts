/** Migration 3: leaderships (one scheduler leader among processes sharing the file), as renewable leases. */
export const sql = /* sql */ `
CREATE TABLE leaders (
  name       TEXT PRIMARY KEY,
  holder     TEXT    NOT NULL,
  since      INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`;
