/**
 * Opening a new SQLite file while another process writes it. Switching a file to WAL reads it and
 * then writes it, and SQLite answers such an upgrade `SQLITE_BUSY` at once, without its busy
 * handler, while another connection holds the write lock: two processes starting together on a
 * new project (`sluice dev` and a `sluice worker`, or two workers) failed with "cannot open the
 * database (SQLITE_BUSY)". The open now retries until the busy timeout (`store/sqlite/connection.ts`).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { holdWriteLock, type LockHolder } from "../helpers/sqlite-lock.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const holders: LockHolder[] = [];
afterEach(() => {
  for (const h of holders.splice(0)) h.kill();
});

/**
 * Another process creating `file` in SQLite's default (rollback) journal mode and holding its write
 * lock for `holdMs` from when this resolves; it commits and exits on its own (the open under test
 * blocks this process's event loop, as SQLite's own busy waits do).
 */
async function creatingProcess(file: string, holdMs: number): Promise<void> {
  holders.push(await holdWriteLock(file, "CREATE TABLE other_app (x)", holdMs));
}

describe("opening a new file another process is writing", () => {
  it("waits for the other process's write, then opens, migrates and works", async () => {
    const path = join(dir, `race-${n++}.db`);
    await creatingProcess(path, 400);
    const started = performance.now();
    const store = openSqliteStore({ path });
    try {
      // Before the fix this threw SQLITE_BUSY within a few ms.
      expect(performance.now() - started).toBeGreaterThan(250);
      expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
      await store.kvPut("k", "v");
      expect(await store.kvGet("k")).toBe("v");
      expect(store.db.prepare("SELECT count(*) AS n FROM other_app").get()).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  });

  it("still fails with SQLITE_BUSY once the busy timeout has passed", async () => {
    const path = join(dir, `race-${n++}.db`);
    await creatingProcess(path, 5_000);
    const started = performance.now();
    expect(() => openSqliteStore({ path, busyTimeout: "300ms" })).toThrow(/SQLITE_BUSY/);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThan(250);
    expect(waited).toBeLessThan(2_000);
  });
});
