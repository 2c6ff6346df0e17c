/**
 * Opening a new lake catalog while another process writes it (issue 11: two workers writing a
 * lake's first partitions at once). Switching the new SQLite file to WAL reads it and then writes
 * it, and SQLite answers that upgrade `SQLITE_BUSY` at once, without its busy handler, while
 * another connection holds the write lock: CI saw a backfill's first partition fail with
 * "database is locked". The open now retries until the busy timeout (`lake/catalog-sqlite.ts`).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLake } from "../../src/lake/lake-create.js";
import { holdWriteLock, type LockHolder } from "../helpers/sqlite-lock.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
const holders: LockHolder[] = [];
afterEach(() => {
  for (const h of holders.splice(0)) h.kill();
});

describe("creating a lake whose new catalog file another process is writing", () => {
  it("waits for the other process's write, then creates the lake once", async () => {
    const path = join(dir, "main.sqlite");
    // Another process creating the file in SQLite's default (rollback) journal mode, holding its
    // write lock for 400 ms (the open under test blocks this process, as SQLite's own waits do).
    holders.push(await holdWriteLock(path, "CREATE TABLE IF NOT EXISTS other_writer (x)", 400));
    const started = performance.now();
    const lake = await createLake(path, { dataPath: join(dir, "main") });
    try {
      // Before the fix this threw "database is locked" within a few ms.
      expect(performance.now() - started).toBeGreaterThan(250);
      expect(await lake.all("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
      expect(await lake.all("SELECT snapshot_id FROM ducklake_snapshot")).toEqual([{ snapshot_id: 0 }]);
      expect(await lake.all("SELECT value FROM ducklake_metadata WHERE key = 'version'")).toEqual([{ value: "1.0" }]);
    } finally {
      await lake.close();
    }
  });
});
