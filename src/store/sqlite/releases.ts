/** The release verbs of the SQLite store (see `Store.publishRelease`); the rules are in `core/release.ts`. */
import { bundlesOfManifest, mayPublishRelease, releaseFromRow, type ReleaseRow } from "../../core/release.js";
import type { PublishReleaseOutcome, PublishReleaseRequest, ReleaseRecord, ReleaseSummary } from "../types.js";
import type { Statements } from "./statements.js";

const SUMMARY_COLUMNS = "id, created_at, created_by, rollback_of, changes";

/** Id of the newest release, or null. */
export function currentReleaseId(s: Statements): number | null {
  const row = s.get("SELECT max(id) AS id FROM releases").get() as { id: number | null };
  return row.id;
}

/** Writes the blobs and the release row; call inside an IMMEDIATE transaction. */
export function publishRelease(s: Statements, now: number, r: PublishReleaseRequest): PublishReleaseOutcome {
  const current = currentReleaseId(s);
  if (!mayPublishRelease(r.expectedCurrent, current)) return { ok: false, current };
  const put = s.get("INSERT OR IGNORE INTO bundles (hash, code, created_at) VALUES (?, ?, ?)");
  for (const b of r.blobs) put.run(b.hash, b.code, now);
  const id = (current ?? 0) + 1;
  s.get(
    "INSERT INTO releases (id, created_at, created_by, rollback_of, changes, manifest) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(id, now, r.createdBy, r.rollbackOf, r.changes, r.manifest);
  return { ok: true, id, createdAt: now };
}

/** One release with its manifest. */
export function getRelease(s: Statements, id: number): ReleaseRecord | null {
  const row = s.get(`SELECT ${SUMMARY_COLUMNS}, manifest FROM releases WHERE id = ?`).get(id) as
    (ReleaseRow & { manifest: string }) | undefined;
  return row ? releaseFromRow(row) : null;
}

/** Newest first, without manifests. */
export function listReleases(s: Statements, limit: number): ReleaseSummary[] {
  const rows = s
    .get(`SELECT ${SUMMARY_COLUMNS} FROM releases ORDER BY id DESC LIMIT ?`)
    .all(Math.max(1, Math.floor(limit))) as ReleaseRow[];
  return rows.map((row) => releaseFromRow(row));
}

/** Each release's module bundle hashes. */
export function releaseBundles(s: Statements): Array<{ id: number; createdAt: number; bundles: string[] }> {
  const rows = s.get("SELECT id, created_at, manifest FROM releases ORDER BY id").all() as Array<{
    id: number;
    created_at: number;
    manifest: string;
  }>;
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at, bundles: bundlesOfManifest(r.manifest) }));
}
