/**
 * The lake reader against lakes written by the real DuckLake extension
 * (`../shared/fixtures/ducklake/`, see its README): for every fixture and every snapshot in
 * its `expected.json`, the tables, columns, row counts, rows, query results, files and
 * snapshot metadata must match exactly.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/project.js";
import { reportChanges } from "../../src/lake/changes.js";
import { duckdbTypeOf } from "../../src/lake/column-types.js";
import { openLake, type LakeReader } from "../../src/lake/reader.js";

// The shared folder sits beside the repository (as in CI): ../shared/fixtures/ducklake.
const ROOT = process.env.SLUICE_DUCKLAKE_FIXTURES ?? join(REPO, "..", "shared", "fixtures", "ducklake");

interface ExpectedTable {
  columns: Array<{ name: string; type: string }>;
  row_count: number;
  checksum: string;
  rows: Record<string, unknown>[];
  files: Array<{
    data_file: string;
    data_file_size_bytes: number;
    delete_file: string | null;
    delete_file_size_bytes: number | null;
  }>;
  queries: Record<string, { sql: string; result: Record<string, unknown>[] }>;
}
interface ExpectedSnapshot {
  snapshot_id: number;
  snapshot_time: string;
  schema_version: number;
  changes: Record<string, string[]>;
  tables: Record<string, ExpectedTable>;
}
interface Expected {
  catalog: string;
  metadata: Record<string, string>;
  latest_snapshot: number;
  snapshots: ExpectedSnapshot[];
}

const fixtures = existsSync(ROOT) ? readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, "expected.json"))) : [];

// The fixtures live outside the repository; without them there is nothing to compare.
describe.skipIf(fixtures.length === 0)("DuckLake reader on the extension's fixtures", () => {
  it("finds both fixtures", () => {
    expect(fixtures.sort()).toEqual(["duckdb-catalog", "sqlite-catalog"]);
  });

  for (const fixture of fixtures) {
    describe(fixture, () => {
      const dir = join(ROOT, fixture);
      const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected;
      let lake: LakeReader;
      beforeAll(async () => {
        lake = await openLake(join(dir, expected.catalog));
      });
      afterAll(async () => lake?.close());

      it("reads the metadata and every snapshot with its time, schema version and changes", async () => {
        expect(lake.metadata).toEqual(expected.metadata);
        const snaps = await lake.snapshots();
        expect(snaps.map((s) => s.snapshotId)).toEqual(expected.snapshots.map((s) => s.snapshot_id));
        for (const e of expected.snapshots) {
          const s = snaps.find((x) => x.snapshotId === e.snapshot_id)!;
          expect(s.time, `snapshot ${e.snapshot_id}`).toBe(e.snapshot_time);
          expect(s.schemaVersion).toBe(e.schema_version);
          expect(reportChanges(s.changes), `changes of ${e.snapshot_id}`).toEqual(e.changes);
        }
        expect((await lake.snapshot()).snapshotId).toBe(expected.latest_snapshot);
      });

      for (const snap of expected.snapshots) {
        it(`snapshot ${snap.snapshot_id}: tables, columns, rows, queries and files`, async () => {
          const ref = { kind: "version", snapshotId: snap.snapshot_id } as const;
          expect((await lake.tables(ref)).map((t) => t.name)).toEqual(Object.keys(snap.tables).sort());
          for (const [name, t] of Object.entries(snap.tables)) {
            const cols = await lake.columns(name, ref);
            expect(
              cols.map((c) => ({ name: c.name, type: duckdbTypeOf(c.type) })),
              name,
            ).toEqual(t.columns);
            const [count] = await lake.query(name, ref, "SELECT count(*) AS n FROM {table}");
            expect(count!.n, `${name} row count`).toBe(t.row_count);
            expect(await lake.query(name, ref, "SELECT * FROM {table} ORDER BY ALL"), `${name} rows`).toEqual(t.rows);
            const [sum] = await lake.query(
              name,
              ref,
              "SELECT md5(coalesce(string_agg(h, ',' ORDER BY h), '')) AS c FROM (SELECT md5(CAST(x AS VARCHAR)) AS h FROM {table} AS x)",
            );
            expect(sum!.c, `${name} checksum`).toBe(t.checksum);
            for (const [q, { sql, result }] of Object.entries(t.queries)) {
              expect(await lake.query(name, ref, sql), `${name} query ${q}`).toEqual(result);
            }
            const files = (await lake.files(name, ref)).map((f) => ({
              data_file: relative(lake.dataDir, f.dataPath),
              data_file_size_bytes: f.data.fileSizeBytes,
              delete_file: f.deletePath ? relative(lake.dataDir, f.deletePath) : null,
              delete_file_size_bytes: f.delete ? f.delete.fileSizeBytes : null,
            }));
            expect(files, `${name} files`).toEqual(t.files);
          }
        });
      }

      it("time travels by timestamp: each snapshot's own time reads that snapshot, a time before the first fails", async () => {
        for (const snap of expected.snapshots) {
          expect((await lake.snapshot({ kind: "timestamp", at: snap.snapshot_time })).snapshotId).toBe(
            snap.snapshot_id,
          );
        }
        await expect(lake.snapshot({ kind: "timestamp", at: "2000-01-01T00:00:00Z" })).rejects.toMatchObject({
          code: "LAKE_SNAPSHOT_NOT_FOUND",
        });
        await expect(lake.columns("main.scratch", { kind: "version", snapshotId: 14 })).rejects.toMatchObject({
          code: "LAKE_TABLE_NOT_FOUND",
        });
      });
    });
  }
});
