/**
 * The machine's raw limits the cold figures are printed against: one fsync of a small
 * write on the file system the databases live on, and each store's single-row commit rate.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { rawSqliteCommitsPerSecond } from "../raw-sqlite.js";
import { rawPostgresCommitsPerSecond } from "../postgres.js";

/** Raw limits of one store. */
export interface RawLimits {
  /** Single-row durable commits per second from one connection. */
  commitsPerSecond: number;
  /** Median time of one `fdatasync` after a 4 KiB append (ms). */
  fsyncMs: number;
}

/** Median ms of `n` fdatasyncs, each after a 4 KiB append to a file in `dir`. */
export function fsyncMs(dir: string, n = 200): number {
  const path = join(dir, "fsync-probe");
  const fd = openSync(path, "w");
  const block = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < n + 20; i++) {
      writeSync(fd, block);
      const t = performance.now();
      fdatasyncSync(fd);
      if (i >= 20) times.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** SQLite's raw limits in `dir` (WAL, synchronous=FULL). */
export function sqliteLimits(dir: string): RawLimits {
  const scratch = mkdtempSync(join(dir, "raw-")); // its own folder: the main bench's raw.db may be in `dir`
  try {
    return { commitsPerSecond: rawSqliteCommitsPerSecond(scratch), fsyncMs: fsyncMs(scratch) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Postgres' raw limits on the server at `url` (a scratch table in `schema`), fsync measured in `dir`. */
export async function postgresLimits(url: string, schema: string, dir: string): Promise<RawLimits> {
  return { commitsPerSecond: await rawPostgresCommitsPerSecond(url, schema), fsyncMs: fsyncMs(dir) };
}
