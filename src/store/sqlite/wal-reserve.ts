/**
 * Grows a SQLite database's write-ahead log to the size it reaches between checkpoints before the
 * first commits need the room, without changing the database.
 *
 * A commit appends its pages to the WAL and `fdatasync`s it. While the file grows, each of those
 * flushes must also make the file's new size durable (on ext4 a journal commit of the inode), so
 * a commit costs about twice what it costs once the log is reset after a checkpoint and reused
 * from its start (here 0.32 against 0.18–0.21 ms for a commit of three pages). SQLite deletes the
 * WAL when the last connection closes, so every process start began in the slow regime until the
 * first automatic checkpoint (1,000 pages, ≈ 4 MB). Databases preallocate their logs for this
 * reason (Postgres keeps whole WAL segments written ahead).
 *
 * How, with SQLite's own writes only: a write transaction with a tiny page cache fills a scratch
 * table until SQLite spills its dirty pages into the WAL as uncommitted frames, then rolls back.
 * The frames stay in the file as garbage that no reader ever sees (a frame counts only up to the
 * last commit frame, and this transaction has none); later commits overwrite them in place. The
 * file is flushed once here, so its blocks and size are on disk before the first commit.
 */
import { closeSync, fsyncSync, openSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";

/** Bytes a WAL frame adds to a page (the frame header). */
const FRAME_HEADER = 24;
/**
 * The filesystem must have this many times the reserve free: on a small or nearly full disk the
 * room goes to the database (a reserved log would take space a checkpoint or a result needs).
 */
const FREE_SPACE_FACTOR = 16;
/** Pages of cache while the log grows: small, so SQLite spills dirty pages into the WAL early. */
const SPILL_CACHE_PAGES = 16;
/** The scratch table; created and rolled back in one transaction, never committed. */
const SCRATCH = "sluice_wal_reserve";

/**
 * Grows `db`'s WAL file to what `wal_autocheckpoint` pages take (≈ 4 MB by default), when it is
 * smaller. Best effort: a database another process is writing (busy), a read-only or in-memory
 * one, or one on a filesystem with less than 16 times that free is left as it is; a failure changes nothing and is not reported (only speed depends on it).
 * Takes ≈ 10 ms for 4 MB here.
 */
export function reserveWal(db: Database.Database): void {
  if (db.memory || db.readonly || db.inTransaction) return;
  const wal = `${db.name}-wal`;
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pages = db.pragma("wal_autocheckpoint", { simple: true }) as number;
  const target = pages * (pageSize + FRAME_HEADER);
  const size = statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
  if (pages <= 0 || size >= target || !roomFor(db.name, FREE_SPACE_FACTOR * (target - size))) return;
  const cacheSize = db.pragma("cache_size", { simple: true }) as number;
  try {
    db.pragma(`cache_size = ${SPILL_CACHE_PAGES}`);
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(`CREATE TABLE ${SCRATCH} (b BLOB)`);
      // One row per page: each insert dirties a new page, and the small cache spills them.
      const insert = db.prepare(`INSERT INTO ${SCRATCH} VALUES (zeroblob(${pageSize - 64}))`);
      // The pages still in the cache at the rollback (and the tree's inner pages) never spill: a margin.
      const rows = Math.ceil((target - size) / (pageSize + FRAME_HEADER)) + 2 * SPILL_CACHE_PAGES;
      for (let i = 0; i < rows; i++) insert.run();
    } finally {
      db.exec("ROLLBACK");
    }
    const fd = openSync(wal, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Busy, full disk, no WAL file: commits only stay in the slower regime.
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

/** Whether the filesystem of `file` has `bytes` available to this process (false when it cannot tell). */
function roomFor(file: string, bytes: number): boolean {
  try {
    const fs = statfsSync(dirname(file));
    return fs.bavail * fs.bsize >= bytes;
  } catch {
    return false;
  }
}
