import { describe, expect, it } from "vitest";
import { partitionFolder, singlePartitionFacts } from "./file-writer.js";
import type { TargetColumn } from "./write-plan.js";

const col = (name: string, columnId: number, lakeType: string): TargetColumn =>
  ({ name, columnId, lakeType, inSource: true }) as TargetColumn;
const id = col("id", 1, "int64");
const day = col("day", 2, "date");
const stat = (min: string, max: string, nulls = 0, values = 3) => [
  { key: "column_size_bytes", value: "50" },
  { key: "max", value: max },
  { key: "min", value: min },
  { key: "null_count", value: String(nulls) },
  { key: "num_values", value: String(values) },
];
const copyRow = (dayMin: string, dayMax: string, dayNulls = 0) => ({
  filename: "/t/day=2026-01-05/f.parquet",
  count: "3",
  file_size_bytes: "400",
  footer_size_bytes: "100",
  column_statistics: [
    { key: '"id"', value: stat("1", "3") },
    { key: '"day"', value: stat(dayMin, dayMax, dayNulls) },
  ],
  partition_keys: null,
});

describe("partitionFolder", () => {
  it("names the hive folder of a partition whose values DuckDB leaves unencoded", () => {
    expect(partitionFolder([day], ["2026-01-05"])).toBe("day=2026-01-05/");
    expect(partitionFolder([day, id], ["2026-01-05", "7"])).toBe("day=2026-01-05/id=7/");
  });
  it("gives none for values DuckDB would encode, or without a named partition", () => {
    expect(partitionFolder([day], ["a/b"])).toBeUndefined();
    expect(partitionFolder([day], ["a b"])).toBeUndefined();
    expect(partitionFolder([day], ["x=y"])).toBeUndefined();
    expect(partitionFolder([day], undefined)).toBeUndefined();
    expect(partitionFolder([], [])).toBeUndefined();
  });
});

describe("singlePartitionFacts", () => {
  it("takes the partition as proven when its column is never NULL and min = max = the value", () => {
    const f = singlePartitionFacts(copyRow("2026-01-05", "2026-01-05"), [id, day], [day], ["2026-01-05"]);
    expect(f?.partitionValues).toEqual(["2026-01-05"]);
    expect(f?.rows).toBe(3);
    expect(f?.stats.map((s) => [s.columnId, s.min, s.max, s.columnSizeBytes])).toEqual([
      [1, "1", "3", 50],
      [2, "2026-01-05", "2026-01-05", 50],
    ]);
  });
  it("does not when rows of another partition or NULLs are in the file", () => {
    expect(singlePartitionFacts(copyRow("2026-01-05", "2026-01-06"), [id, day], [day], ["2026-01-05"])).toBeUndefined();
    expect(singlePartitionFacts(copyRow("2026-01-04", "2026-01-04"), [id, day], [day], ["2026-01-05"])).toBeUndefined();
    expect(
      singlePartitionFacts(copyRow("2026-01-05", "2026-01-05", 1), [id, day], [day], ["2026-01-05"]),
    ).toBeUndefined();
  });
});
