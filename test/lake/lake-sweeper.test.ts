/**
 * The automatic sweep's turns and ages on a real SQLite store and lake: two processes' sweepers
 * sharing a store sweep a lake once per interval between them, and a lake's own DuckLake option
 * `delete_older_than` sets the age of what is swept.
 */
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAssetConfig } from "../../src/assets/config.js";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { openAssetHost } from "../../src/assets/host.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { LakeSweeper } from "../../src/pipeline/runtime/lake-sweeper.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";

let root: string;
let store: Store;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sluice-lake-sweeper-"));
  const lake = await openLakeForWrite(join(root, ".sluice", "lakes", "main.sqlite"), {
    dataPath: join(root, ".sluice", "lakes", "main"),
  });
  try {
    await withDuckDb([], (conn) => lake.write(conn, { table: "t", mode: "append", source: "SELECT 1 AS id" }));
    await lake.db.run("INSERT INTO ducklake_metadata (key, value, scope, scope_id) VALUES (?, ?, NULL, NULL)", [
      "delete_older_than",
      "3 hours",
    ]);
  } finally {
    await lake.close();
  }
  store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function orphan(name: string, ageMs: number, now: number): string {
  const path = join(root, ".sluice", "lakes", "main", "main", "t", name);
  writeFileSync(path, "x");
  utimesSync(path, (now - ageMs) / 1000, (now - ageMs) / 1000);
  return path;
}

describe("LakeSweeper", () => {
  it("takes one turn per lake and interval across sweepers, with the lake's delete_older_than as age", async () => {
    const assets = openAssetHost(resolveAssetConfig(root, undefined, {}), store);
    const lines: string[] = [];
    const a = new LakeSweeper(
      store,
      () => assets,
      { everyMs: 60_000 },
      (l) => lines.push(l),
    );
    const b = new LakeSweeper(
      store,
      () => assets,
      { everyMs: 60_000 },
      (l) => lines.push(l),
    );
    const now = Date.now();
    const old = orphan("ducklake-4h.parquet", 4 * 3600_000, now);
    const recent = orphan("ducklake-2h.parquet", 2 * 3600_000, now); // older than an hour, younger than the lake's 3 hours
    expect(await a.pass(now)).toEqual([{ lake: "main", olderThanMs: 3 * 3600_000, removed: [old] }]);
    expect(await b.pass(now + 1000)).toEqual([]); // a's turn covers this interval
    const older = orphan("ducklake-5h.parquet", 5 * 3600_000, now);
    expect(await b.pass(now + 61_000)).toEqual([{ lake: "main", olderThanMs: 3 * 3600_000, removed: [older] }]);
    expect(await a.pass(now + 62_000)).toEqual([]);
    expect(existsSync(recent)).toBe(true);
    expect(lines).toHaveLength(2);
  });
});
