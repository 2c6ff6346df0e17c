/**
 * The lake on a Postgres catalog (real embedded Postgres): the specification's 28 tables in
 * the lake's own schema, every write strategy read back at every snapshot, rollback, and two
 * writers on separate connections committing different partitions at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { reportChanges } from "../../src/lake/changes.js";
import { rollbackTable } from "../../src/lake/rollback.js";
import { openPostgresLake, type LakeWriter } from "../../src/lake/writer.js";
import { testDatabase } from "../helpers/postgres.js";

let url: string;
let dir: string;
let lake: LakeWriter;
beforeAll(async () => {
  url = await testDatabase("lake");
  dir = mkdtempSync(join(tmpdir(), "sluice-lake-pg-"));
  lake = await openPostgresLake(url, "lake_main", { dataPath: join(dir, "data") });
});
afterAll(async () => {
  await lake?.close();
  rmSync(dir, { recursive: true, force: true });
});
const read = (table: string, s: number) =>
  lake.reader.query(table, { kind: "version", snapshotId: s }, "SELECT * FROM {table} ORDER BY ALL");

describe("lake on a Postgres catalog", () => {
  it("creates the 28 catalog tables in its own schema with version 1.0 and snapshot 0", async () => {
    const tables = await lake.db.all(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'lake_main' ORDER BY table_name",
    );
    expect(tables).toHaveLength(28);
    expect(lake.reader.metadata.version).toBe("1.0");
    const again = await openPostgresLake(url, "lake_main", { dataPath: join(dir, "data") });
    try {
      expect((await again.reader.snapshots()).map((s) => s.snapshotId)).toEqual([0]);
    } finally {
      await again.close();
    }
  });

  it("appends, merges, replaces partitions and the whole table, rolls back; every snapshot reads back", async () => {
    const w = (req: Parameters<LakeWriter["write"]>[1]) => withDuckDb([], (conn) => lake.write(conn, req));
    expect(
      (
        await w({
          table: "t",
          mode: "append",
          source:
            "SELECT * FROM (VALUES (1::BIGINT, 'a', DATE '2024-01-01'), (2, 'b', DATE '2024-01-01')) v(id, label, day)",
        })
      ).snapshotId,
    ).toBe(1);
    expect(
      (
        await w({
          table: "t",
          mode: "merge",
          key: "id",
          source: "SELECT 2::BIGINT AS id, 'B' AS label, DATE '2024-01-01' AS day",
        })
      ).snapshotId,
    ).toBe(2);
    expect(
      (await w({ table: "t", mode: "replace", source: "SELECT 5::BIGINT AS id, 2.5::DOUBLE AS score" })).snapshotId,
    ).toBe(3);
    expect(await read("t", 1)).toEqual([
      { id: 1, label: "a", day: "2024-01-01" },
      { id: 2, label: "b", day: "2024-01-01" },
    ]);
    expect(await read("t", 2)).toEqual([
      { id: 1, label: "a", day: "2024-01-01" },
      { id: 2, label: "B", day: "2024-01-01" },
    ]);
    expect(await read("t", 3)).toEqual([{ id: 5, score: 2.5 }]);
    expect(await rollbackTable(lake.db, lake.reader, "t", 2)).toBe(4);
    expect(await read("t", 4)).toEqual(await read("t", 2));
    await w({ table: "p", mode: "replace", partition: { d: "x" }, source: "SELECT 1 AS v, 'x' AS d" });
    await w({ table: "p", mode: "replace", partition: { d: "y" }, source: "SELECT 2 AS v, 'y' AS d" });
    await w({ table: "p", mode: "replace", partition: { d: "x" }, source: "SELECT 3 AS v, 'x' AS d" });
    expect(await read("p", 7)).toEqual([
      { v: 2, d: "y" },
      { v: 3, d: "x" },
    ]);
    const snaps = await lake.reader.snapshots();
    expect(snaps.map((s) => reportChanges(s.changes))[1]).toEqual({
      tables_created: ["main.t"],
      tables_inserted_into: ["1"],
    });
    expect(snaps.at(-1)!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const stats = await lake.db.all(
      "SELECT contains_null, min_value, max_value FROM ducklake_table_column_stats WHERE table_id = 1 AND column_id = 1",
    );
    expect(stats).toEqual([{ contains_null: false, min_value: "1", max_value: "5" }]);
  });

  it("two writers on separate connections commit different partitions of one table at once", async () => {
    const other = await openPostgresLake(url, "lake_main", { dataPath: join(dir, "data") });
    try {
      const jobs = [];
      for (let i = 1; i <= 3; i++) {
        jobs.push(
          withDuckDb([], (c) =>
            lake.write(c, { table: "q", mode: "replace", partition: { d: "a" }, source: `SELECT ${i} AS v, 'a' AS d` }),
          ),
        );
        jobs.push(
          withDuckDb([], (c) =>
            other.write(c, {
              table: "q",
              mode: "replace",
              partition: { d: "b" },
              source: `SELECT ${i * 10} AS v, 'b' AS d`,
            }),
          ),
        );
      }
      const results = await Promise.all(jobs);
      expect(new Set(results.map((r) => r.snapshotId)).size).toBe(6);
      expect(
        await lake.reader.query("q", { kind: "latest" }, "SELECT d, count(*) AS n FROM {table} GROUP BY d ORDER BY d"),
      ).toEqual([
        { d: "a", n: 1 },
        { d: "b", n: 1 },
      ]);
    } finally {
      await other.close();
    }
  });
});
