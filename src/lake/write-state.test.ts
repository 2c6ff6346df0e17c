import { describe, expect, it } from "vitest";
import type { WrittenDataFile } from "./file-writer.js";
import type { TableAt } from "./reader.js";
import { afterFileCommit, type TableWriteState, WriteStateCache } from "./write-state.js";

const state = (snapshotId: number): TableWriteState => ({
  snapshotId,
  table: { name: "main.t" } as TableAt,
  tableDir: "/lake/main/t/",
  columns: [],
  partitioning: null,
  files: [
    { dataFileId: 1, dataPath: "/lake/main/t/d=1/a.parquet", deleteFileId: null, partitionValues: ["1"] },
    {
      dataFileId: 2,
      dataPath: "/lake/main/t/d=2/b.parquet",
      deleteFileId: 7,
      deletePath: "/x",
      partitionValues: ["2"],
    },
  ],
});
const file = (relPath: string, values: string[] | null): WrittenDataFile =>
  ({ path: `/tmp/${relPath}`, relPath, partitionValues: values }) as WrittenDataFile;

describe("afterFileCommit", () => {
  it("drops the ended files and adds the new ones at their table paths with the commit's ids", () => {
    const next = afterFileCommit(state(4), 5, [1], [{ dataFileId: 9, file: file("d=1/c.parquet", ["1"]) }]);
    expect(next.snapshotId).toBe(5);
    expect(next.files).toEqual([
      state(4).files[1],
      { dataFileId: 9, dataPath: "/lake/main/t/d=1/c.parquet", deleteFileId: null, partitionValues: ["1"] },
    ]);
  });
});

describe("WriteStateCache", () => {
  it("keeps states of one snapshot only, and moves on only from the snapshot a commit was planned on", async () => {
    const cache = new WriteStateCache();
    let reads = 0;
    const read = async () => {
      reads++;
      return [];
    };
    expect(cache.table("main.t", 4)).toBeUndefined();
    cache.keep("main.t", state(4));
    await cache.schemasAt(4, read);
    await cache.schemasAt(4, read);
    expect(reads).toBe(1);
    expect(cache.table("main.t", 4)?.snapshotId).toBe(4);
    cache.advance(4, "main.t", state(5));
    expect(cache.table("main.t", 5)?.snapshotId).toBe(5);
    await cache.schemasAt(5, read);
    expect(reads).toBe(1);
    // another snapshot (someone else committed): nothing kept
    expect(cache.table("main.t", 6)).toBeUndefined();
    await cache.schemasAt(6, read);
    expect(reads).toBe(2);
    // a commit planned on a snapshot the cache is no longer at forgets everything
    cache.keep("main.t", state(6));
    cache.advance(5, "main.t", state(7));
    expect(cache.table("main.t", 7)).toBeUndefined();
    // a state read at a snapshot the cache left meanwhile is not kept
    cache.keep("main.t", state(6));
    expect(cache.table("main.t", 7)).toBeUndefined();
  });
});
