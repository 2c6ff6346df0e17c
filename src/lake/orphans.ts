/**
 * The orphan sweep: Parquet files under a lake's data folder that no catalog row references
 * (written by a write whose audit failed in a process that died, or whose commit never
 * happened), older than a grace period so files of writes still in flight are kept. Only
 * files named like the lake's own (`ducklake-*.parquet`) are ever removed. Local data
 * folders, and `s3://` ones through the lake's object store access.
 */
import { rmSync, statSync } from "node:fs";
import { filesUnder } from "./files-under.js";
import { resolve } from "node:path";
import { bool, num } from "./catalog-db.js";
import { readSchemas, readTables } from "./catalog-read.js";
import { LakeUnsupportedError } from "./errors.js";
import { isRemotePath, isUrl, resolveRelative } from "./paths.js";
import type { LakeReader } from "./reader.js";

const LAKE_FILE = /(^|\/)ducklake-[^/]*\.parquet$/;
/** A path as compared: absolute for local files, as is for URLs. */
const canonical = (path: string): string => (isUrl(path) ? path : resolve(path));

/** Default grace period: files younger than this are never swept. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** Every file path the catalog references, in any snapshot (and those scheduled for deletion). */
async function referencedFiles(lake: LakeReader): Promise<Set<string>> {
  const db = lake.db;
  const schemas = new Map((await readSchemas(db)).map((s) => [s.schemaId, s]));
  const tableDirs = new Map<number, string>();
  for (const t of await readTables(db)) {
    const s = schemas.get(t.schemaId);
    const schemaDir = s ? resolveRelative(lake.dataDir, s.path, s.pathIsRelative) : lake.dataDir;
    tableDirs.set(t.tableId, resolveRelative(schemaDir, t.path, t.pathIsRelative));
  }
  const out = new Set<string>();
  for (const sql of [
    "SELECT table_id, path, path_is_relative FROM ducklake_data_file",
    "SELECT table_id, path, path_is_relative FROM ducklake_delete_file",
  ]) {
    for (const r of await db.all(sql)) {
      const dir = tableDirs.get(num(r.table_id)) ?? lake.dataDir;
      out.add(canonical(resolveRelative(dir, String(r.path), bool(r.path_is_relative ?? 1))));
    }
  }
  for (const r of await db.all("SELECT path, path_is_relative FROM ducklake_files_scheduled_for_deletion")) {
    out.add(canonical(resolveRelative(lake.dataDir, String(r.path), bool(r.path_is_relative ?? 1))));
  }
  return out;
}

/** Remove unreferenced lake files older than `graceMs`; returns the removed paths. */
export async function sweepOrphans(
  lake: LakeReader,
  options: { graceMs?: number; now?: number } = {},
): Promise<string[]> {
  const keep = await referencedFiles(lake);
  const cutoff = (options.now ?? Date.now()) - (options.graceMs ?? ORPHAN_GRACE_MS);
  if (isRemotePath(lake.dataDir)) {
    if (!lake.remote)
      throw new LakeUnsupportedError("the orphan sweep of an object-store data path opened without its S3 settings");
    const removed: string[] = [];
    for (const o of await lake.remote.list(lake.dataDir)) {
      if (!LAKE_FILE.test(o.url) || keep.has(o.url) || o.modifiedMs > cutoff) continue;
      await lake.remote.remove(o.url);
      removed.push(o.url);
    }
    return removed;
  }
  if (isUrl(lake.dataDir)) throw new LakeUnsupportedError("the orphan sweep of an object-store data path");
  const found = filesUnder(lake.dataDir, (name) => /^ducklake-.*\.parquet$/.test(name));
  const removed: string[] = [];
  for (const f of found) {
    if (keep.has(resolve(f))) continue;
    if (statSync(f).mtimeMs > cutoff) continue;
    rmSync(f, { force: true });
    removed.push(f);
  }
  return removed.sort();
}
