/**
 * The writer reads a SELECT's columns from a prepared statement instead of `DESCRIBE`: on real
 * DuckDB, every type a lake stores comes out as DESCRIBE names it, and the catalog's latest
 * snapshot and files-at-a-snapshot reads (filtered in SQL) agree with reading every row.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { readDataFiles, readLatestSnapshot, readSnapshots } from "../../src/lake/catalog-read.js";
import { lakeTypeOf } from "../../src/lake/column-types.js";
import { jsonRows } from "../../src/assets/duckdb-json.js";
import { bindOnly, sourceColumns } from "../../src/lake/source-columns.js";
import { filesAt } from "../../src/lake/visibility.js";
import { openLakeForWrite } from "../../src/lake/writer.js";

const EVERY_TYPE = `SELECT 1::TINYINT a, 1::SMALLINT b, 1::INTEGER c, 1::BIGINT d, 1::HUGEINT e, 1::UTINYINT f,
  1::USMALLINT g, 1::UINTEGER h, 1::UBIGINT i, 1::UHUGEINT j, 1.5::FLOAT k, 1.5::DOUBLE l, 1.5::DECIMAL(18,3) m,
  'x' "with space", 'x'::BLOB p, true q, DATE '2020-01-01' r, TIME '10:00:00' s, TIMESTAMP '2020-01-01' t,
  TIMESTAMPTZ '2020-01-01' u, TIMESTAMP_S '2020-01-01' v, TIMESTAMP_MS '2020-01-01' w, TIMESTAMP_NS '2020-01-01' x,
  INTERVAL 1 DAY y, uuid() z, '{}'::JSON dd, TIMETZ '10:00:00+01' ee`;

describe("sourceColumns", () => {
  it("names every storable type as DESCRIBE does, without running the SELECT", async () => {
    await withDuckDb([], async (conn) => {
      const described = jsonRows(await conn.runAndReadAll(`DESCRIBE ${EVERY_TYPE}`)).map((r) => ({
        name: String(r.column_name),
        lakeType: lakeTypeOf(String(r.column_type)),
      }));
      expect(described.find((c) => c.name === "dd")?.lakeType).toBe("json");
      expect(await sourceColumns(conn, EVERY_TYPE)).toEqual(described);
      // Prepared, not run: a SELECT that would fail at run time still describes.
      await expect(conn.runAndReadAll("SELECT error('boom') AS e")).rejects.toThrow(/boom/);
      expect(await sourceColumns(conn, "SELECT CAST(error('boom') AS INTEGER) AS e")).toEqual([
        { name: "e", lakeType: "int32" },
      ]);
      await expect(sourceColumns(conn, "SELECT [1, 2] AS l")).rejects.toThrow(/cannot be stored/);
    });
  });

  it("binds a SELECT wrapped in a LIMIT $1 to the very columns of the SELECT prepared as given, and falls back to that where the wrap is refused", async () => {
    await withDuckDb([], async (conn) => {
      await conn.run("CREATE TEMP TABLE t AS SELECT 1 AS a, 'x' AS b");
      const asGiven = async (select: string) => {
        const p = await conn.prepare(select);
        try {
          return Array.from({ length: p.columnCount }, (_, i) => ({
            name: p.columnName(i),
            lakeType: lakeTypeOf(p.columnType(i).alias ?? p.columnType(i).toString()),
          }));
        } finally {
          p.destroySync();
        }
      };
      const shapes = [
        EVERY_TYPE,
        // duplicate names stay duplicates (SELECT * FROM (…) would rename one a_1), so the writer still refuses them
        "SELECT 1 AS a, 2 AS a",
        "SELECT a, a FROM t",
        "FROM t",
        "VALUES (1, 'x')",
        "WITH x AS (SELECT 1 AS q) SELECT * FROM x ORDER BY q",
        "SELECT a FROM t UNION ALL SELECT 2",
        // refused in the wrap (own LIMIT, a semicolon, not a query): prepared as given
        "SELECT * FROM t LIMIT 1",
        "SELECT a FROM t;",
        "DESCRIBE t",
        // a trailing line comment does not swallow the closing parenthesis
        "SELECT a FROM t -- the a column",
      ];
      for (const select of shapes) expect(await sourceColumns(conn, select), select).toEqual(await asGiven(select));
      // the ordinary shapes take the wrap (not the fallback); the refused ones do not
      const accepted = async (select: string) =>
        conn.prepare(bindOnly(select)).then(
          (p) => (p.destroySync(), true),
          () => false,
        );
      for (const select of shapes.slice(0, 7)) expect(await accepted(select), select).toBe(true);
      for (const select of shapes.slice(7, 10)) expect(await accepted(select), select).toBe(false);
      // bad SQL: DuckDB's own error for the SELECT as given
      await expect(sourceColumns(conn, "SELECT nope FROM t")).rejects.toThrow(/nope/);
      await expect(sourceColumns(conn, "SELECT * FROM missing_table")).rejects.toThrow(/missing_table/);
    });
  });

  it("reads the latest snapshot and the files at a snapshot like the whole history does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-lake-src-"));
    const lake = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: join(dir, "data") });
    try {
      await withDuckDb([], async (conn) => {
        for (const day of ["a", "b", "a", "c", "b"])
          await lake.write(conn, {
            table: "t",
            mode: "replace",
            partition: { day },
            source: `SELECT 1 AS id, '${day}' AS day`,
          });
      });
      const all = await readSnapshots(lake.db);
      expect(await readLatestSnapshot(lake.db)).toEqual(all[all.length - 1]);
      const tableId = (await lake.reader.tableAt("t", all.length - 1)).table.tableId;
      const every = await readDataFiles(lake.db, tableId);
      for (const s of all.map((x) => x.snapshotId)) {
        const filtered = await readDataFiles(lake.db, tableId, s);
        expect(filtered).toEqual(filesAt(every, [], s).map((f) => f.data));
      }
      expect(every.length).toBe(5);
      expect((await readDataFiles(lake.db, tableId, all.length - 1)).length).toBe(3);
    } finally {
      await lake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
