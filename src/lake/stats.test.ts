import { describe, expect, it } from "vitest";
import { compareStat, mergeColumnStats } from "./stats.js";

describe("column statistics", () => {
  it("compares by type, not as text", () => {
    expect(compareStat("int64", "9", "10")).toBeLessThan(0);
    expect(compareStat("decimal(10,2)", "-3.50", "1.00")).toBeLessThan(0);
    expect(compareStat("decimal(10,2)", "1000.00", "99.99")).toBeGreaterThan(0);
    expect(compareStat("decimal(10,2)", "-10.00", "-9.99")).toBeLessThan(0);
    expect(compareStat("float64", "2.0", "10.0")).toBeLessThan(0);
    expect(compareStat("float64", "-inf", "-1e300")).toBeLessThan(0);
    expect(compareStat("date", "infinity", "2024-01-01")).toBeGreaterThan(0);
    expect(compareStat("varchar", "b", "a")).toBeGreaterThan(0);
  });

  it("merges a file into the table's statistics", () => {
    const first = mergeColumnStats("decimal(10,2)", undefined, {
      columnId: 3,
      columnSizeBytes: 1,
      valueCount: 4,
      nullCount: 0,
      min: "5.25",
      max: "99.99",
      containsNan: null,
    });
    expect(first).toEqual({ columnId: 3, containsNull: false, containsNan: null, min: "5.25", max: "99.99" });
    const second = mergeColumnStats("decimal(10,2)", first, {
      columnId: 3,
      columnSizeBytes: 1,
      valueCount: 3,
      nullCount: 1,
      min: "-3.50",
      max: "1000.00",
      containsNan: null,
    });
    expect(second).toEqual({ columnId: 3, containsNull: true, containsNan: null, min: "-3.50", max: "1000.00" });
    const f = mergeColumnStats("float64", undefined, {
      columnId: 4,
      columnSizeBytes: 1,
      valueCount: 1,
      nullCount: 0,
      min: null,
      max: null,
      containsNan: true,
    });
    expect(f.containsNan).toBe(true);
    expect(
      mergeColumnStats("interval", undefined, {
        columnId: 1,
        columnSizeBytes: 1,
        valueCount: 1,
        nullCount: 0,
        min: "x",
        max: "y",
        containsNan: null,
      }).min,
    ).toBeNull();
  });
});
