/** Rolling a table back makes a new snapshot equal to an old one; later writes continue from it. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { reportChanges } from "../../src/lake/changes.js";
import { rollbackTable } from "../../src/lake/rollback.js";
import { openLakeForWrite, type LakeWriter, type WriteRequest } from "../../src/lake/writer.js";

let dir: string;
let lake: LakeWriter;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "sluice-lake-rb-"));
  lake = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: join(dir, "data") });
});
afterEach(async () => {
  await lake?.close();
  rmSync(dir, { recursive: true, force: true });
});
const write = (req: WriteRequest) => withDuckDb([], (conn) => lake.write(conn, req));
const read = (s: number) =>
  lake.reader.query("t", { kind: "version", snapshotId: s }, "SELECT * FROM {table} ORDER BY ALL");
const cols = async (s: number) =>
  (await lake.reader.columns("t", { kind: "version", snapshotId: s })).map((c) => `${c.columnId}:${c.name}:${c.type}`);

describe("rollback", () => {
  it("restores rows (deletes included) and columns of an old snapshot as a new one", async () => {
    await write({
      table: "t",
      mode: "append",
      source: "SELECT * FROM (VALUES (1::BIGINT, 'a'), (2, 'b'), (3, 'c')) v(id, label)",
    });
    await write({ table: "t", mode: "merge", key: "id", source: "SELECT 2::BIGINT AS id, 'B' AS label" });
    await write({ table: "t", mode: "replace", source: "SELECT 9::BIGINT AS id, 1.5::DOUBLE AS score" });
    expect(await cols(3)).toEqual(["1:id:int64", "3:score:float64"]);

    const s4 = await rollbackTable(lake.db, lake.reader, "t", 2);
    expect(s4).toBe(4);
    expect(await read(4)).toEqual(await read(2));
    expect(await read(4)).toEqual([
      { id: 1, label: "a" },
      { id: 2, label: "B" },
      { id: 3, label: "c" },
    ]);
    expect(await cols(4)).toEqual(await cols(2));
    const snap = (await lake.reader.snapshots())[4]!;
    expect(reportChanges(snap.changes)).toEqual({
      tables_altered: ["1"],
      tables_inserted_into: ["1"],
      tables_deleted_from: ["1"],
    });
    expect(snap.commitMessage).toBe("rollback main.t to snapshot 2");
    expect(await read(3)).toEqual([{ id: 9, score: 1.5 }]);

    const next = await write({ table: "t", mode: "merge", key: "id", source: "SELECT 3::BIGINT AS id, 'C' AS label" });
    expect(next.snapshotId).toBe(5);
    expect(await read(5)).toEqual([
      { id: 1, label: "a" },
      { id: 2, label: "B" },
      { id: 3, label: "C" },
    ]);
    expect(await rollbackTable(lake.db, lake.reader, "t", 1)).toBe(6);
    expect(await read(6)).toEqual([
      { id: 1, label: "a" },
      { id: 2, label: "b" },
      { id: 3, label: "c" },
    ]);
    await expect(rollbackTable(lake.db, lake.reader, "t", 99)).rejects.toMatchObject({
      code: "LAKE_SNAPSHOT_NOT_FOUND",
    });
    await expect(rollbackTable(lake.db, lake.reader, "t", 0)).rejects.toMatchObject({ code: "LAKE_TABLE_NOT_FOUND" });
    expect((await lake.reader.snapshot()).snapshotId).toBe(6);
  });

  it("restores a snapshot before an earlier rollback, and a rollback's own snapshot, exactly", async () => {
    await write({
      table: "t",
      mode: "append",
      source: "SELECT * FROM (VALUES (1::BIGINT, 'a'), (2, 'b'), (3, 'c')) v(id, label)",
    });
    await write({ table: "t", mode: "merge", key: "id", source: "SELECT 2::BIGINT AS id, 'B' AS label" }); // 2
    await write({ table: "t", mode: "append", source: "SELECT 4::BIGINT AS id, 'd' AS label" }); // 3
    await write({ table: "t", mode: "replace", source: "SELECT 5::BIGINT AS id, 2.5::DOUBLE AS score" }); // 4
    const steps: Array<[to: number, made: number]> = [];
    for (const to of [1, 3, 5, 2, 4, 6]) steps.push([to, await rollbackTable(lake.db, lake.reader, "t", to)]);
    expect(steps.map(([, made]) => made)).toEqual([5, 6, 7, 8, 9, 10]);
    for (const [to, made] of steps) {
      expect([made, await read(made)]).toEqual([made, await read(to)]);
      expect([made, await cols(made)]).toEqual([made, await cols(to)]);
    }
    expect(await read(10)).toEqual([
      { id: 1, label: "a" },
      { id: 2, label: "B" },
      { id: 3, label: "c" },
      { id: 4, label: "d" },
    ]);
  });
});
