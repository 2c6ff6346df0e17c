/**
 * The lake writer on real SQLite catalogs and real Parquet files: every strategy and unit,
 * read back with the reader at every snapshot; catalog shape against a catalog the DuckDB
 * extension wrote; statistics, field ids and partition values; write-audit-publish; the
 * orphan sweep; concurrent writers of different partitions.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { REPO } from "../helpers/project.js";
import { reportChanges } from "../../src/lake/changes.js";
import { sqlString } from "../../src/assets/duckdb.js";
import { isFloat } from "../../src/lake/column-types.js";
import { jsonRows } from "../../src/assets/duckdb-json.js";
import { factsFromCopyStats } from "../../src/lake/file-writer.js";
import { ident } from "../../src/lake/scan-plan.js";
import { statExpression } from "../../src/lake/stats.js";
import { sweepOrphans } from "../../src/lake/orphans.js";
import { openLakeForWrite, type LakeWriter, type WriteRequest } from "../../src/lake/writer.js";

const FIXTURE_SQLITE = join(
  process.env.SLUICE_DUCKLAKE_FIXTURES ?? join(REPO, "..", "shared", "fixtures", "ducklake"),
  "sqlite-catalog",
  "meta.sqlite",
);

let dir: string;
let lake: LakeWriter;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "sluice-lake-"));
  lake = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: join(dir, "data") });
});
afterEach(async () => {
  await lake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const write = (req: WriteRequest) => withDuckDb([], (conn) => lake.write(conn, req));
const at = (snapshotId: number) => ({ kind: "version", snapshotId }) as const;
const rowsAt = (table: string, s: number, order = "ORDER BY ALL") =>
  lake.reader.query(table, at(s), `SELECT * FROM {table} ${order}`);
const parquetFiles = (root: string): string[] => {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
};

describe("lake catalog shape", () => {
  it.skipIf(!existsSync(FIXTURE_SQLITE))(
    "has exactly the tables and columns (names and declared types) of a catalog the extension wrote",
    () => {
      const shape = (path: string) => {
        const db = new Database(path, { readonly: true });
        try {
          const tables = (
            db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
              name: string;
            }>
          ).map((t) => t.name);
          return Object.fromEntries(
            tables.map((t) => [
              t,
              (
                db.prepare(`PRAGMA table_info(${t})`).all() as Array<{
                  name: string;
                  type: string;
                  pk: number;
                  notnull: number;
                }>
              ).map((c) => [c.name, c.type, c.pk, c.notnull]),
            ]),
          );
        } finally {
          db.close();
        }
      };
      const mine = shape(join(dir, "main.sqlite"));
      expect(Object.keys(mine)).toHaveLength(28);
      expect(mine).toEqual(shape(FIXTURE_SQLITE));
    },
  );

  it("starts at snapshot 0 with the main schema and version 1.0", async () => {
    expect(lake.reader.metadata).toMatchObject({
      version: "1.0",
      created_by: "Sluice",
      encrypted: "false",
      data_path: `${join(dir, "data")}/`,
    });
    const [s0] = await lake.reader.snapshots();
    expect(s0).toMatchObject({ snapshotId: 0, schemaVersion: 0, nextCatalogId: 1, nextFileId: 0 });
    expect(reportChanges(s0!.changes)).toEqual({ schemas_created: ["main"] });
  });
});

describe("whole-table writes", () => {
  it("creates, appends, merges on a key (twice into one file), replaces with new columns; every snapshot reads back", async () => {
    const r1 = await write({
      table: "orders",
      mode: "append",
      source:
        "SELECT * FROM (VALUES (1::BIGINT, 'new', 10.50::DECIMAL(10,2)), (2, 'paid', 5.25), (3, 'paid', 99.99), (4, NULL, 1.00)) t(order_id, status, amount)",
    });
    expect(r1).toMatchObject({ snapshotId: 1, rows: 4, created: true, unchanged: false });
    const r2 = await write({
      table: "orders",
      mode: "append",
      source:
        "SELECT * FROM (VALUES (5::BIGINT, 'new', 7.00::DECIMAL(10,2)), (6, 'new', 8.00)) t(order_id, status, amount)",
    });
    expect(r2.snapshotId).toBe(2);
    const r3 = await write({
      table: "orders",
      mode: "merge",
      key: "order_id",
      source:
        "SELECT * FROM (VALUES (2::BIGINT, 'refunded', 5.25::DECIMAL(10,2)), (7, 'new', 1.50)) t(order_id, status, amount)",
    });
    expect(r3).toMatchObject({ snapshotId: 3, rows: 2 });
    const r4 = await write({
      table: "orders",
      mode: "merge",
      key: "order_id",
      source: "SELECT 3::BIGINT AS order_id, 'shipped' AS status, 99.99::DECIMAL(10,2) AS amount",
    });
    expect(r4.snapshotId).toBe(4);
    const r5 = await write({
      table: "orders",
      mode: "replace",
      source: "SELECT 100::BIGINT AS order_id, DATE '2024-01-01' AS day, 'n' AS status",
    });
    expect(r5.snapshotId).toBe(5);

    const snaps = await lake.reader.snapshots();
    expect(snaps.map((s) => [s.snapshotId, reportChanges(s.changes)])).toEqual([
      [0, { schemas_created: ["main"] }],
      [1, { tables_created: ["main.orders"], tables_inserted_into: ["1"] }],
      [2, { tables_inserted_into: ["1"] }],
      [3, { tables_inserted_into: ["1"], tables_deleted_from: ["1"] }],
      [4, { tables_inserted_into: ["1"], tables_deleted_from: ["1"] }],
      [5, { tables_altered: ["1"], tables_inserted_into: ["1"], tables_deleted_from: ["1"] }],
    ]);
    expect(snaps.map((s) => s.schemaVersion)).toEqual([0, 1, 1, 1, 1, 2]);

    expect(await rowsAt("orders", 1)).toEqual([
      { order_id: 1, status: "new", amount: "10.50" },
      { order_id: 2, status: "paid", amount: "5.25" },
      { order_id: 3, status: "paid", amount: "99.99" },
      { order_id: 4, status: null, amount: "1.00" },
    ]);
    expect((await rowsAt("orders", 2)).map((r) => r.order_id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await rowsAt("orders", 3)).toEqual([
      { order_id: 1, status: "new", amount: "10.50" },
      { order_id: 2, status: "refunded", amount: "5.25" },
      { order_id: 3, status: "paid", amount: "99.99" },
      { order_id: 4, status: null, amount: "1.00" },
      { order_id: 5, status: "new", amount: "7.00" },
      { order_id: 6, status: "new", amount: "8.00" },
      { order_id: 7, status: "new", amount: "1.50" },
    ]);
    const s4 = await rowsAt("orders", 4);
    expect(s4.map((r) => [r.order_id, r.status])).toEqual([
      [1, "new"],
      [2, "refunded"],
      [3, "shipped"],
      [4, null],
      [5, "new"],
      [6, "new"],
      [7, "new"],
    ]);
    expect(await rowsAt("orders", 5)).toEqual([{ order_id: 100, day: "2024-01-01", status: "n" }]);
    expect((await lake.reader.columns("orders", at(4))).map((c) => [c.columnId, c.name, c.type])).toEqual([
      [1, "order_id", "int64"],
      [2, "status", "varchar"],
      [3, "amount", "decimal(10,2)"],
    ]);
    expect((await lake.reader.columns("orders", at(5))).map((c) => [c.columnId, c.name, c.type])).toEqual([
      [1, "order_id", "int64"],
      [4, "day", "date"],
      [2, "status", "varchar"],
    ]);

    // The first file got a delete file at 3 and a replacing one at 4 (positions of 2 and 3).
    const first = (await lake.reader.files("orders", at(4)))[0]!;
    expect(first.delete).toMatchObject({ beginSnapshot: 4, deleteCount: 2 });
    const deletes = await lake.db.all(
      "SELECT delete_file_id, data_file_id, begin_snapshot, end_snapshot, delete_count FROM ducklake_delete_file ORDER BY delete_file_id",
    );
    expect(deletes.map((d) => [d.data_file_id, d.begin_snapshot, d.end_snapshot, d.delete_count])).toEqual([
      [0, 3, 4, 1],
      [0, 4, 5, 2],
    ]);
    const files = await lake.db.all(
      "SELECT data_file_id, begin_snapshot, end_snapshot, record_count, row_id_start FROM ducklake_data_file ORDER BY data_file_id",
    );
    expect(
      files.map((f) => [f.data_file_id, f.begin_snapshot, f.end_snapshot, f.record_count, f.row_id_start]),
    ).toEqual([
      [0, 1, 5, 4, 0],
      [1, 2, 5, 2, 4],
      [3, 3, 5, 2, 6],
      [5, 4, 5, 1, 8],
      [6, 5, null, 1, 9],
    ]);
  });

  it("records file and table statistics and Parquet field ids equal to column ids", async () => {
    await write({
      table: "t",
      mode: "append",
      source:
        "SELECT * FROM (VALUES (1, 'b', 2.5::DOUBLE, true), (9, NULL, 'NaN'::DOUBLE, false), (10, 'a', -1.0, NULL)) v(id, label, x, flag)",
    });
    await write({
      table: "t",
      mode: "append",
      source: "SELECT 11 AS id, 'c' AS label, 100.0::DOUBLE AS x, true AS flag",
    });
    const stats = await lake.db.all(
      "SELECT data_file_id, column_id, value_count, null_count, min_value, max_value, contains_nan FROM ducklake_file_column_stats ORDER BY data_file_id, column_id",
    );
    expect(
      stats.map((s) => [
        s.data_file_id,
        s.column_id,
        s.value_count,
        s.null_count,
        s.min_value,
        s.max_value,
        s.contains_nan,
      ]),
    ).toEqual([
      [0, 1, 3, 0, "1", "10", null],
      [0, 2, 2, 1, "a", "b", null],
      [0, 3, 3, 0, "-1.0", "2.5", 1],
      [0, 4, 2, 1, "0", "1", null],
      [1, 1, 1, 0, "11", "11", null],
      [1, 2, 1, 0, "c", "c", null],
      [1, 3, 1, 0, "100.0", "100.0", 0],
      [1, 4, 1, 0, "1", "1", null],
    ]);
    expect(
      await lake.db.all(
        "SELECT count(*) AS n FROM ducklake_file_column_stats WHERE column_size_bytes IS NULL OR column_size_bytes <= 0",
      ),
    ).toEqual([{ n: 0 }]);
    const table = await lake.db.all(
      "SELECT column_id, contains_null, contains_nan, min_value, max_value FROM ducklake_table_column_stats ORDER BY column_id",
    );
    expect(table.map((s) => [s.column_id, s.contains_null, s.contains_nan, s.min_value, s.max_value])).toEqual([
      [1, 0, null, "1", "11"],
      [2, 1, null, "a", "c"],
      [3, 0, 1, "-1.0", "100.0"],
      [4, 1, null, "0", "1"],
    ]);
    const [ts] = await lake.db.all("SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats");
    const sizes = await lake.db.all("SELECT sum(file_size_bytes) AS s FROM ducklake_data_file");
    expect(ts).toEqual({ record_count: 4, next_row_id: 4, file_size_bytes: sizes[0]!.s });
    const [file] = await lake.reader.files("t");
    const fieldIds = await withDuckDb([], async (conn) =>
      jsonRows(
        await conn.runAndReadAll(
          `SELECT name, field_id FROM parquet_schema('${file!.dataPath}') WHERE field_id IS NOT NULL`,
        ),
      ),
    );
    expect(fieldIds).toEqual([
      { name: "id", field_id: 1 },
      { name: "label", field_id: 2 },
      { name: "x", field_id: 3 },
      { name: "flag", field_id: 4 },
    ]);
    const footer = await lake.db.all(
      "SELECT footer_size, file_size_bytes FROM ducklake_data_file WHERE data_file_id = 0",
    );
    expect(Number(footer[0]!.footer_size)).toBeGreaterThan(0);
    expect(Number(footer[0]!.footer_size)).toBeLessThan(Number(footer[0]!.file_size_bytes));
  });
});

describe("partitioned writes", () => {
  const day = (d: string, ids: number[], kind = "click") =>
    `SELECT * FROM (VALUES ${ids.map((i) => `(${i}, DATE '${d}', '${kind}')`).join(", ")}) t(event_id, day, kind)`;

  it("replaces one partition without touching another; partition info, values and hive folders", async () => {
    await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-01" },
      source: day("2024-03-01", [1, 2, 3]),
    });
    await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-02" },
      source: day("2024-03-02", [4, 5]),
    });
    await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-02" },
      source: day("2024-03-02", [6, 7, 8], "view"),
    });
    await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-02" },
      source: day("2024-03-02", [6, 7, 8], "view"),
    });
    await write({ table: "events", mode: "append", partition: { day: "2024-03-01" }, source: day("2024-03-01", [9]) });
    await write({
      table: "events",
      mode: "merge",
      key: "event_id",
      partition: { day: "2024-03-01" },
      source: day("2024-03-01", [1, 10], "buy"),
    });

    expect((await rowsAt("events", 1)).map((r) => r.event_id)).toEqual([1, 2, 3]);
    expect((await rowsAt("events", 2)).map((r) => r.event_id)).toEqual([1, 2, 3, 4, 5]);
    expect(await lake.reader.query("events", at(3), "SELECT event_id, kind FROM {table} ORDER BY event_id")).toEqual([
      { event_id: 1, kind: "click" },
      { event_id: 2, kind: "click" },
      { event_id: 3, kind: "click" },
      { event_id: 6, kind: "view" },
      { event_id: 7, kind: "view" },
      { event_id: 8, kind: "view" },
    ]);
    expect((await rowsAt("events", 4)).map((r) => r.event_id)).toEqual([1, 2, 3, 6, 7, 8]);
    expect((await rowsAt("events", 5)).map((r) => r.event_id)).toEqual([1, 2, 3, 6, 7, 8, 9]);
    expect(
      await lake.reader.query(
        "events",
        at(6),
        "SELECT event_id, kind FROM {table} WHERE day = DATE '2024-03-01' ORDER BY event_id",
      ),
    ).toEqual([
      { event_id: 1, kind: "buy" },
      { event_id: 2, kind: "click" },
      { event_id: 3, kind: "click" },
      { event_id: 9, kind: "click" },
      { event_id: 10, kind: "buy" },
    ]);

    const files = await lake.db.all(
      "SELECT data_file_id, path, begin_snapshot, end_snapshot, partition_id FROM ducklake_data_file ORDER BY data_file_id",
    );
    expect(
      files.map((f) => [
        f.data_file_id,
        String(f.path).split("/")[0],
        f.begin_snapshot,
        f.end_snapshot,
        f.partition_id,
      ]),
    ).toEqual([
      [0, "day=2024-03-01", 1, null, 2],
      [1, "day=2024-03-02", 2, 3, 2],
      [2, "day=2024-03-02", 3, 4, 2],
      [3, "day=2024-03-02", 4, null, 2],
      [4, "day=2024-03-01", 5, null, 2],
      [6, "day=2024-03-01", 6, null, 2],
    ]);
    expect(
      await lake.db.all(
        'SELECT partition_id, table_id, partition_key_index, column_id, "transform" AS t FROM ducklake_partition_column',
      ),
    ).toEqual([{ partition_id: 2, table_id: 1, partition_key_index: 0, column_id: 2, t: "identity" }]);
    expect(
      (
        await lake.db.all(
          "SELECT data_file_id, partition_value FROM ducklake_file_partition_value ORDER BY data_file_id",
        )
      ).map((r) => r.partition_value),
    ).toEqual(["2024-03-01", "2024-03-02", "2024-03-02", "2024-03-02", "2024-03-01", "2024-03-01"]);
    const snaps = await lake.reader.snapshots();
    expect(reportChanges(snaps[3]!.changes)).toEqual({ tables_inserted_into: ["1"], tables_deleted_from: ["1"] });
    expect(reportChanges(snaps[5]!.changes)).toEqual({ tables_inserted_into: ["1"] });
  });

  it("writes a whole partitioned table in one snapshot (one file per partition) and replaces it whole", async () => {
    const first = await write({
      table: "events",
      mode: "append",
      partitionBy: ["day"],
      source: `${day("2024-03-01", [1, 2])} UNION ALL ${day("2024-03-02", [3])}`,
    });
    expect(first).toMatchObject({ snapshotId: 1, rows: 3, created: true });
    const pv = await lake.db.all(
      "SELECT data_file_id, partition_value FROM ducklake_file_partition_value ORDER BY data_file_id",
    );
    expect(pv.map((r) => [r.data_file_id, r.partition_value])).toEqual([
      [0, "2024-03-01"],
      [1, "2024-03-02"],
    ]);
    expect(
      await lake.db.all("SELECT count(*) AS n FROM ducklake_file_column_stats WHERE column_size_bytes IS NULL"),
    ).toEqual([{ n: 0 }]);
    expect(
      (await lake.db.all("SELECT record_count FROM ducklake_data_file ORDER BY data_file_id")).map(
        (r) => r.record_count,
      ),
    ).toEqual([2, 1]);
    const [file] = await lake.reader.files("events", at(1));
    const fieldIds = await withDuckDb([], async (conn) =>
      jsonRows(
        await conn.runAndReadAll(
          `SELECT name, field_id FROM parquet_schema('${file!.dataPath}') WHERE field_id IS NOT NULL`,
        ),
      ),
    );
    expect(fieldIds).toEqual([
      { name: "event_id", field_id: 1 },
      { name: "day", field_id: 2 },
      { name: "kind", field_id: 3 },
    ]);
    await write({ table: "events", mode: "replace", source: day("2024-03-09", [7]) });
    expect((await rowsAt("events", 2)).map((r) => r.event_id)).toEqual([7]);
    expect((await rowsAt("events", 1)).map((r) => r.event_id)).toEqual([1, 2, 3]);
    expect(
      String((await lake.db.all("SELECT path FROM ducklake_data_file WHERE begin_snapshot = 2"))[0]!.path),
    ).toMatch(/^day=2024-03-09\//);
  });

  it("refuses a slice with rows outside its partition and commits nothing", async () => {
    await write({ table: "events", mode: "replace", partition: { day: "2024-03-01" }, source: day("2024-03-01", [1]) });
    const before = parquetFiles(join(dir, "data"));
    await expect(
      write({
        table: "events",
        mode: "replace",
        partition: { day: "2024-03-01" },
        source: `${day("2024-03-01", [1])} UNION ALL ${day("2024-03-05", [2])}`,
      }),
    ).rejects.toMatchObject({
      code: "LAKE_WRITE_INVALID",
      message: expect.stringContaining("1 row(s) of the slice have day other than 2024-03-01"),
    });
    await expect(
      write({
        table: "events",
        mode: "append",
        partition: { kind: "x" },
        source: "SELECT 1 AS event_id, DATE '2024-03-01' AS day, 'x' AS kind",
      }),
    ).rejects.toMatchObject({ code: "LAKE_WRITE_INVALID", message: expect.stringContaining("partitioned by day") });
    // a NULL partition value, written straight from the SELECT (replace) or through the slice table (merge)
    for (const mode of ["replace", "merge"] as const)
      await expect(
        write({
          table: "nulls",
          mode,
          key: "event_id",
          partitionBy: ["day"],
          source: "SELECT * FROM (VALUES (1, DATE '2024-03-01'), (2, NULL), (3, NULL)) v(event_id, day)",
        }),
      ).rejects.toMatchObject({
        code: "LAKE_WRITE_INVALID",
        message: expect.stringContaining("is NULL in 2 row(s) of the slice"),
      });
    // a NULL merge key would match nothing and be added again at every run
    await expect(
      write({
        table: "keyed",
        mode: "merge",
        key: "k",
        source: "SELECT * FROM (VALUES (NULL, 'a'), (NULL, 'b'), (1, 'c')) t(k, v)",
      }),
    ).rejects.toMatchObject({
      code: "LAKE_WRITE_INVALID",
      message: expect.stringContaining("the merge key k is NULL in 2 row(s) of the slice"),
    });
    expect((await lake.reader.snapshot()).snapshotId).toBe(1);
    expect(parquetFiles(join(dir, "data"))).toEqual(before);
  });
});

describe("statistics from the COPY", () => {
  const source = `SELECT * FROM (VALUES
      (true, '\\xAA\\x01'::BLOB, 1.5::DECIMAL(10,2), TIMESTAMP '2026-01-01 10:00:00.123456', TIMESTAMPTZ '2026-01-01 10:00:00+00',
       TIME '10:11:12', 'ü ' || repeat('x', 80), 'nan'::DOUBLE, 1.5::FLOAT, 3::TINYINT, 2::HUGEINT, NULL::VARCHAR,
       DATE '2026-05-16', '{"a":1}'::JSON, 'a/b c=d%'),
      (false, '\\x00'::BLOB, -2.25, TIMESTAMP '2025-01-01 10:00:00', TIMESTAMPTZ '2025-01-01 10:00:00+00',
       TIME '01:00:00', 'a', 2.0, -1e10, -3, -2, NULL, NULL, '[]'::JSON, 'a/b c=d%'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, DATE '2026-01-01', NULL, 'plain')
    ) t(b, bl, dec, ts, tstz, tm, s, dbl, fl, ti, hi, nul, d, j, part)`;

  it("records what reading every written file back gives, for every type with statistics, per partition", async () => {
    await withDuckDb([], async (conn) => {
      await conn.run("SET TimeZone = 'UTC'");
      await lake.write(conn, { table: "typed", mode: "replace", partitionBy: ["part"], source });
    });
    await expectStatsAsReadBack("typed");
    // Each partition written by name: 'plain' by one plain COPY into part=plain/ (its returned
    // statistics prove the partition), 'a/b c=d%' (a folder name DuckDB encodes) by the PARTITION_BY pass.
    await withDuckDb([], async (conn) => {
      await conn.run("SET TimeZone = 'UTC'");
      for (const part of ["plain", "a/b c=d%"])
        await lake.write(conn, {
          table: "typed_named",
          mode: "replace",
          partition: { part },
          source: `SELECT * FROM (${source}) WHERE part = ${sqlString(part)}`,
        });
    });
    const named = await lake.db.all(
      "SELECT f.path FROM ducklake_data_file f JOIN ducklake_table t USING (table_id) WHERE t.table_name = 'typed_named' ORDER BY f.data_file_id",
    );
    expect(named.map((r) => String(r.path).replace(/ducklake-.*/, ""))).toEqual([
      "part=plain/",
      "part=a%2Fb%20c%3Dd%25/",
    ]);
    await expectStatsAsReadBack("typed_named");
  });

  /** Every file's recorded statistics of `table` equal what reading the file back gives. */
  async function expectStatsAsReadBack(table: string): Promise<void> {
    const recorded = await lake.db.all(
      `SELECT f.path, c.column_name, s.value_count, s.null_count, s.min_value, s.max_value, s.contains_nan, s.column_size_bytes, f.record_count, v.partition_value
       FROM ducklake_file_column_stats s JOIN ducklake_data_file f USING (data_file_id) JOIN ducklake_column c USING (column_id)
       JOIN ducklake_file_partition_value v USING (data_file_id) JOIN ducklake_table t ON t.table_id = f.table_id
       WHERE t.table_name = ${sqlString(table)} ORDER BY v.partition_value, s.column_id`,
    );
    expect(new Set(recorded.map((r) => r.partition_value))).toEqual(new Set(["a/b c=d%", "plain"]));
    const columns = await lake.reader.columns(table);
    const tableDir = join(dir, "data", "main", table);
    const expected = await withDuckDb([], async (conn) => {
      await conn.run("SET TimeZone = 'UTC'");
      const out: unknown[] = [];
      for (const r of recorded) {
        const c = columns.find((x) => x.name === r.column_name)!;
        const e = ident(c.name);
        const file = sqlString(join(tableDir, String(r.path)));
        const [row] = jsonRows(
          await conn.runAndReadAll(
            `SELECT count(${e}) AS v, count(*) - count(${e}) AS n, ${statExpression(c.type, e, "min")} AS lo, ${statExpression(c.type, e, "max")} AS hi,
             ${isFloat(c.type) ? `CAST(coalesce(bool_or(isnan(${e})), false) AS INTEGER)` : "NULL"} AS nan, count(*) AS total,
             (SELECT sum(total_compressed_size) FROM parquet_metadata(${file}) WHERE path_in_schema = ${sqlString(c.name)}) AS size
             FROM read_parquet(${file}, hive_partitioning = false)`,
          ),
        );
        out.push([r.column_name, row!.v, row!.n, row!.lo, row!.hi, row!.nan, row!.size, row!.total]);
      }
      return out;
    });
    expect(
      recorded.map((r) => [
        r.column_name,
        r.value_count,
        r.null_count,
        r.min_value,
        r.max_value,
        r.contains_nan,
        r.column_size_bytes,
        r.record_count,
      ]),
    ).toEqual(expected);
  }

  it("takes the figures from the COPY's RETURN_STATS, not from the read-back fallback", async () => {
    await withDuckDb([], async (conn) => {
      await conn.run("SET TimeZone = 'UTC'");
      await lake.write(conn, { table: "typed", mode: "replace", partitionBy: ["part"], source });
    });
    const columns = await lake.reader.columns("typed");
    const columnsPlan = columns.map((c) => ({ name: c.name, columnId: c.columnId, lakeType: c.type, inSource: true }));
    const partition = columnsPlan.filter((c) => c.name === "part");
    await withDuckDb([], async (conn) => {
      const rows = jsonRows(
        await conn.runAndReadAll(
          `COPY (${source}) TO ${sqlString(join(dir, "check"))} (FORMAT parquet, PARTITION_BY (part), WRITE_PARTITION_COLUMNS true, RETURN_STATS true)`,
        ),
      );
      expect(rows).toHaveLength(2);
      for (const row of rows)
        expect(factsFromCopyStats(row, columnsPlan as never, partition as never), String(row.filename)).toBeDefined();
    });
    // A column DuckDB returns no figures for (INTERVAL) makes the file be read back instead.
    await write({ table: "spans", mode: "replace", source: "SELECT INTERVAL 1 DAY AS iv, 1 AS id" });
    const spans = await lake.db.all(
      "SELECT value_count, null_count, column_size_bytes FROM ducklake_file_column_stats s JOIN ducklake_data_file f USING (data_file_id) WHERE f.table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 'spans') ORDER BY column_id",
    );
    expect(spans.map((r) => [r.value_count, r.null_count, Number(r.column_size_bytes) > 0])).toEqual([
      [1, 0, true],
      [1, 0, true],
    ]);
  });
});

describe("write-audit-publish", () => {
  it("runs the audit on the written slice before the commit; a failing audit publishes nothing and removes the files", async () => {
    await write({ table: "t", mode: "append", source: "SELECT 1 AS id" });
    const before = parquetFiles(join(dir, "data"));
    let seen: unknown[] = [];
    let filesSeen: readonly string[] = [];
    const failing = write({
      table: "t",
      mode: "replace",
      source: "SELECT * FROM (VALUES (1), (1), (2)) v(id)",
      audit: async ({ conn, relation, files }) => {
        seen = jsonRows(
          await conn.runAndReadAll(`SELECT id, count(*) AS n FROM ${relation} GROUP BY id HAVING count(*) > 1`),
        );
        filesSeen = files;
        expect(files.every((f) => existsSync(f))).toBe(true);
        if (seen.length) throw new Error("unique id failed");
      },
    });
    await expect(failing).rejects.toThrow("unique id failed");
    expect(seen).toEqual([{ id: 1, n: 2 }]);
    expect(filesSeen).toHaveLength(1);
    expect(existsSync(filesSeen[0]!)).toBe(false);
    expect(parquetFiles(join(dir, "data"))).toEqual(before);
    expect((await lake.reader.snapshot()).snapshotId).toBe(1);
    expect(await rowsAt("t", 1)).toEqual([{ id: 1 }]);
    const ok = await write({ table: "t", mode: "replace", source: "SELECT 2 AS id", audit: async () => undefined });
    expect(ok.snapshotId).toBe(2);
  });

  it("audits a slice that changes nothing too (an empty merge): a failing test still fails the write", async () => {
    await write({ table: "t", mode: "append", source: "SELECT 1 AS id" });
    let audited = -1;
    const empty = "SELECT * FROM (VALUES (1)) v(id) WHERE false";
    const failing = write({
      table: "t",
      mode: "merge",
      key: "id",
      source: empty,
      audit: async ({ conn, relation }) => {
        const [row] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM ${relation}`));
        audited = Number(row!.n);
        if (audited === 0) throw new Error("the slice has no rows");
      },
    });
    await expect(failing).rejects.toThrow("the slice has no rows");
    expect(audited).toBe(0);
    const passing = await write({ table: "t", mode: "merge", key: "id", source: empty, audit: async () => undefined });
    expect(passing).toMatchObject({ snapshotId: 1, unchanged: true });
  });
});

describe("durability", () => {
  it("commits only once the new files are flushed: a flush that fails commits nothing and fails the write", async () => {
    await write({ table: "t", mode: "append", source: "SELECT 1 AS id" });
    // the audit runs after the COPY and before the flush: a file gone by then cannot be flushed
    const failing = write({
      table: "t",
      mode: "append",
      source: "SELECT 2 AS id",
      audit: async ({ files }) => {
        for (const f of files) rmSync(f);
      },
    });
    await expect(failing).rejects.toMatchObject({ code: "ENOENT" });
    expect((await lake.reader.snapshot()).snapshotId).toBe(1);
    expect(await lake.reader.query("t", { kind: "latest" }, "SELECT id FROM {table}")).toEqual([{ id: 1 }]);
    const next = await write({ table: "t", mode: "append", source: "SELECT 3 AS id" });
    expect(await rowsAt("t", next.snapshotId)).toEqual([{ id: 1 }, { id: 3 }]);
  });
});

describe("features not implemented are refused, not misread", () => {
  it("refuses a table with rows inlined in the catalog, and nested types on write", async () => {
    await write({ table: "t", mode: "append", source: "SELECT 1 AS id" });
    await lake.db.run(
      "CREATE TABLE ducklake_inlined_data_1_1 (row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER)",
    );
    await lake.db.run(
      "INSERT INTO ducklake_inlined_data_tables (table_id, table_name, schema_version) VALUES (1, 'ducklake_inlined_data_1_1', 1)",
    );
    expect(await rowsAt("t", 1)).toEqual([{ id: 1 }]);
    await lake.db.run("INSERT INTO ducklake_inlined_data_1_1 VALUES (1, 1, NULL, 2)");
    await expect(rowsAt("t", 1)).rejects.toMatchObject({
      code: "LAKE_FEATURE_UNSUPPORTED",
      message: expect.stringContaining("inlined"),
    });
    await expect(write({ table: "n", mode: "append", source: "SELECT [1, 2] AS xs" })).rejects.toMatchObject({
      code: "LAKE_TYPE_UNSUPPORTED",
    });
  });
});

describe("orphan sweep", () => {
  it("removes unreferenced lake files past the grace period and keeps referenced and other files", async () => {
    await write({ table: "t", mode: "append", source: "SELECT 1 AS id" });
    await write({ table: "t", mode: "replace", source: "SELECT 2 AS id" });
    const tableDir = join(dir, "data", "main", "t");
    const stray = join(tableDir, "ducklake-0000-orphan.parquet");
    const other = join(tableDir, "notes.txt");
    writeFileSync(stray, "x");
    writeFileSync(other, "y");
    expect(await sweepOrphans(lake.reader, { graceMs: 60_000 })).toEqual([]);
    expect(await sweepOrphans(lake.reader, { graceMs: 0, now: Date.now() + 1000 })).toEqual([stray]);
    expect(existsSync(other)).toBe(true);
    expect(await rowsAt("t", 1)).toEqual([{ id: 1 }]);
    expect(await rowsAt("t", 2)).toEqual([{ id: 2 }]);
  });
});

describe("concurrent writers", () => {
  it("a writer plans on what another writer committed since its own last write (its kept state is checked against the latest snapshot)", async () => {
    const other = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: join(dir, "data") });
    try {
      const replace = (w: LakeWriter, v: number) =>
        withDuckDb([], (c) =>
          w.write(c, { table: "e", mode: "replace", partition: { p: "a" }, source: `SELECT ${v} AS v, 'a' AS p` }),
        );
      await replace(lake, 1);
      await replace(lake, 2);
      // the other writer replaces the partition lake last wrote: lake must end the other's file, not only its own
      await replace(other, 3);
      const last = await replace(lake, 4);
      await write({ table: "e", mode: "append", partition: { p: "a" }, source: "SELECT 5 AS v, 'a' AS p" });
      expect(await rowsAt("e", last.snapshotId)).toEqual([{ v: 4, p: "a" }]);
      expect(await lake.reader.query("e", { kind: "latest" }, "SELECT v FROM {table} ORDER BY v")).toEqual([
        { v: 4 },
        { v: 5 },
      ]);
      const live = await lake.db.all("SELECT count(*) AS n FROM ducklake_data_file WHERE end_snapshot IS NULL");
      expect(Number(live[0]!.n)).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("two writers on one catalog replacing different partitions of one table both commit", async () => {
    await write({ table: "e", mode: "replace", partition: { p: "a" }, source: "SELECT 0 AS v, 'a' AS p" });
    const other = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: join(dir, "data") });
    try {
      const jobs = [];
      for (let i = 1; i <= 3; i++) {
        jobs.push(
          withDuckDb([], (c) =>
            lake.write(c, { table: "e", mode: "replace", partition: { p: "a" }, source: `SELECT ${i} AS v, 'a' AS p` }),
          ),
        );
        jobs.push(
          withDuckDb([], (c) =>
            other.write(c, {
              table: "e",
              mode: "replace",
              partition: { p: "b" },
              source: `SELECT ${i * 10} AS v, 'b' AS p`,
            }),
          ),
        );
      }
      const results = await Promise.all(jobs);
      expect(new Set(results.map((r) => r.snapshotId)).size).toBe(6);
      const rows = await lake.reader.query(
        "e",
        { kind: "latest" },
        "SELECT p, count(*) AS n FROM {table} GROUP BY p ORDER BY p",
      );
      expect(rows).toEqual([
        { p: "a", n: 1 },
        { p: "b", n: 1 },
      ]);
    } finally {
      await other.close();
    }
  });
});
