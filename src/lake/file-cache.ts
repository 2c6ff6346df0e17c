/**
 * The bounded local cache of a lake's object-store files (`s3://` data paths). DuckDB reads
 * local copies (`remote-files.ts`); this keeps their folder within a size limit by removing
 * the least recently used copies. "Used" is a copy's modification time, which every cache
 * hit sets to now, so processes sharing one cache folder (a server and its workers) share
 * one recency order through the file system. Copies used within the protection window are
 * never removed: a scan resolves its files before DuckDB opens them, so a copy just handed
 * out must survive until it is read. The limit is therefore soft: the cache may exceed it by
 * what was used within the window (a query needing more than the limit still runs).
 * Lake files never change once written, so removing a copy only costs a download later.
 */
import { rmSync, statSync } from "node:fs";
import { filesUnder } from "./files-under.js";

/** Default size limit of one lake's cache: 2 GiB. */
export const DEFAULT_CACHE_MAX_BYTES = 2 * 1024 ** 3;

/** Default protection window: copies used within the last 10 minutes are kept. */
export const DEFAULT_CACHE_MIN_AGE_MS = 10 * 60 * 1000;

/** Partial downloads (`*.part`) older than this are leftovers of a process that died mid-download. */
const STALE_PART_MS = 60 * 60 * 1000;

/** One cached copy. */
export interface CacheEntry {
  readonly path: string;
  readonly size: number;
  /** When it was last used (ms since the epoch). */
  readonly usedMs: number;
}

/**
 * The copies to remove so that the cache fits `maxBytes`: least recently used first, never
 * one used after `protectedSinceMs`. Pure.
 * @returns the paths to remove, and the bytes the cache holds afterwards
 */
export function evictionPlan(
  entries: readonly CacheEntry[],
  maxBytes: number,
  protectedSinceMs: number,
): { remove: string[]; bytesAfter: number } {
  let total = entries.reduce((n, e) => n + e.size, 0);
  const remove: string[] = [];
  const oldestFirst = [...entries].sort((a, b) => a.usedMs - b.usedMs || (a.path < b.path ? -1 : 1));
  for (const e of oldestFirst) {
    if (total <= maxBytes) break;
    if (e.usedMs > protectedSinceMs) break;
    remove.push(e.path);
    total -= e.size;
  }
  return { remove, bytesAfter: total };
}

/** Options of {@link pruneCache}. */
export interface PruneOptions {
  readonly maxBytes: number;
  /** Copies used within this many milliseconds before `now` are kept. */
  readonly minAgeMs: number;
  readonly now: number;
}

/**
 * Remove least recently used copies under `dir` until it fits `maxBytes` (see
 * {@link evictionPlan}), and partial downloads left by dead processes.
 * @returns the removed paths and the bytes the cache holds afterwards
 */
export function pruneCache(dir: string, options: PruneOptions): { removed: string[]; bytes: number } {
  const files = filesUnder(dir);
  const entries: CacheEntry[] = [];
  const removed: string[] = [];
  for (const path of files) {
    let st;
    try {
      st = statSync(path);
    } catch {
      continue; // removed meanwhile by another process
    }
    if (path.endsWith(".part")) {
      if (st.mtimeMs < options.now - STALE_PART_MS) {
        rmSync(path, { force: true });
        removed.push(path);
      }
      continue;
    }
    entries.push({ path, size: st.size, usedMs: st.mtimeMs });
  }
  const protectedSince = options.now - options.minAgeMs;
  const plan = evictionPlan(entries, options.maxBytes, protectedSince);
  let bytes = plan.bytesAfter;
  for (const path of plan.remove) {
    // Looked at again just before: another process may have used the copy since the walk.
    const st = statSync(path, { throwIfNoEntry: false });
    if (st && st.mtimeMs > protectedSince) {
      bytes += st.size;
      continue;
    }
    rmSync(path, { force: true });
    removed.push(path);
  }
  return { removed, bytes };
}
