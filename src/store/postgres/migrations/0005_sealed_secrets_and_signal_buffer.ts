/**
 * Migration 5.
 *
 * Secrets are no longer kept in plain text: the resume-link secret that earlier versions stored
 * as `meta` key `secret:<name>` moves to the key-value records as `legacy-secret:<name>`; the
 * engine seals it under the process's secret key on first use (`engine/resume-secret.ts`) and
 * deletes the plain copy, so links already sent keep working.
 *
 * Buffered signals (`signal(event, payload, { buffer })`): a signal no run was waiting for is
 * kept until `expires_at`, and the next `waitFor` on its event takes it (oldest first, once).
 */
export const sql = /* sql */ `
UPDATE meta SET key = 'kv:legacy-secret:' || substr(key, 8) WHERE key LIKE 'secret:%';

CREATE TABLE signal_buffer (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event      text   NOT NULL,
  payload    text,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX signal_buffer_by_event ON signal_buffer (event, seq);
`;
