import { describe, expect, it } from "vitest";
import { lineageAt, type LineageRecord, nextLineageHistory } from "./lineage-record.js";

const record = (snapshot_id: number, sources: string[], script = "f/x.sql"): LineageRecord => ({
  asset: "ducklake://main/t",
  script,
  run: `r${snapshot_id}`,
  snapshot_id,
  at: snapshot_id,
  columns: [
    {
      output: "a",
      sources: sources.map((c) => ({ table: "ducklake://main/s", column: c })),
      passthrough: true,
      origin: "inferred",
    },
  ],
  warnings: [],
});

describe("column lineage history", () => {
  it("adds a version only when the lineage changes, in snapshot order", () => {
    const v1 = nextLineageHistory([], record(1, ["a"]))!;
    expect(v1.map((v) => v.snapshot_id)).toEqual([1]);
    expect(nextLineageHistory(v1, record(2, ["a"]))).toBeUndefined();
    const v2 = nextLineageHistory(v1, record(5, ["a", "b"]))!;
    expect(v2.map((v) => v.snapshot_id)).toEqual([1, 5]);
    expect(nextLineageHistory(v2, record(6, ["a"], "f/y.sql"))!.map((v) => v.snapshot_id)).toEqual([1, 5, 6]);
    // a write committed at an earlier snapshot but recorded later goes in its place
    expect(nextLineageHistory(v2, record(3, ["c"]))!.map((v) => v.snapshot_id)).toEqual([1, 3, 5]);
    // recorded again for the same snapshot: replaced, or dropped when it now equals the one before
    expect(nextLineageHistory(v2, record(5, ["d"]))!.map((v) => [v.snapshot_id, v.columns[0]!.sources.length])).toEqual(
      [
        [1, 1],
        [5, 1],
      ],
    );
    expect(nextLineageHistory(v2, record(5, ["a"]))!.map((v) => v.snapshot_id)).toEqual([1]);
  });

  it("gives the version in effect at a snapshot: the last one at or before it", () => {
    const h = nextLineageHistory(nextLineageHistory([], record(2, ["a"]))!, record(5, ["a", "b"]))!;
    expect(lineageAt(h, 1)).toBeUndefined();
    expect(lineageAt(h, 2)?.snapshot_id).toBe(2);
    expect(lineageAt(h, 4)?.snapshot_id).toBe(2);
    expect(lineageAt(h, 5)?.snapshot_id).toBe(5);
    expect(lineageAt(h, 99)?.snapshot_id).toBe(5);
    expect(lineageAt(h)?.snapshot_id).toBe(5);
    expect(lineageAt([], 3)).toBeUndefined();
  });
});
