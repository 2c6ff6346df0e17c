/** The release verbs of the Postgres store (see `Store.publishRelease`); the rules are in `core/release.ts`. */
import type pg from "pg";
import { bundlesOfManifest, mayPublishRelease, releaseFromRow, type ReleaseRow } from "../../core/release.js";
import type { PublishReleaseOutcome, PublishReleaseRequest, ReleaseRecord, ReleaseSummary } from "../types.js";
import type { Queryable } from "./db.js";

const SUMMARY_COLUMNS = "id, created_at, created_by, rollback_of, changes";

/** Id of the newest release, or null. */
export async function currentReleaseId(q: Queryable): Promise<number | null> {
  const { rows } = await q.query<{ id: string | null }>("SELECT max(id) AS id FROM releases");
  return rows[0]?.id == null ? null : Number(rows[0].id);
}

/**
 * Writes the blobs and the release row inside the caller's transaction. The table lock
 * serialises deploys, so two of them never both diff against the same current release.
 */
export async function publishRelease(c: pg.ClientBase, r: PublishReleaseRequest): Promise<PublishReleaseOutcome> {
  await c.query("LOCK TABLE releases IN SHARE ROW EXCLUSIVE MODE");
  const current = await currentReleaseId(c as unknown as Queryable);
  if (!mayPublishRelease(r.expectedCurrent, current)) return { ok: false, current };
  if (r.blobs.length)
    await c.query(
      `INSERT INTO bundles (hash, code, created_at)
       SELECT h, code, now_ms() FROM unnest($1::text[], $2::text[]) AS b(h, code)
       ON CONFLICT (hash) DO NOTHING`,
      [r.blobs.map((b) => b.hash), r.blobs.map((b) => b.code)],
    );
  const id = (current ?? 0) + 1;
  const { rows } = await c.query<{ created_at: string }>(
    `INSERT INTO releases (id, created_at, created_by, rollback_of, changes, manifest)
     VALUES ($1, now_ms(), $2, $3, $4, $5) RETURNING created_at`,
    [id, r.createdBy, r.rollbackOf, r.changes, r.manifest],
  );
  return { ok: true, id, createdAt: Number(rows[0]!.created_at) };
}

/** One release with its manifest. */
export async function getRelease(q: Queryable, id: number): Promise<ReleaseRecord | null> {
  const { rows } = await q.query<ReleaseRow & { manifest: string }>(
    `SELECT ${SUMMARY_COLUMNS}, manifest FROM releases WHERE id = $1`,
    [id],
  );
  return rows[0] ? releaseFromRow(rows[0]) : null;
}

/** Newest first, without manifests. */
export async function listReleases(q: Queryable, limit: number): Promise<ReleaseSummary[]> {
  const { rows } = await q.query<ReleaseRow>(`SELECT ${SUMMARY_COLUMNS} FROM releases ORDER BY id DESC LIMIT $1`, [
    Math.max(1, Math.floor(limit)),
  ]);
  return rows.map((row) => releaseFromRow(row));
}

/** Each release's module bundle hashes. */
export async function releaseBundles(
  q: Queryable,
): Promise<Array<{ id: number; createdAt: number; bundles: string[] }>> {
  const { rows } = await q.query<{ id: string; created_at: string; manifest: string }>(
    "SELECT id, created_at, manifest FROM releases ORDER BY id",
  );
  return rows.map((r) => ({
    id: Number(r.id),
    createdAt: Number(r.created_at),
    bundles: bundlesOfManifest(r.manifest),
  }));
}
