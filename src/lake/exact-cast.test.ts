import { describe, expect, it } from "vitest";
import { castIsExact, LossyCastError, lossyColumns } from "./exact-cast.js";

describe("exact casts into an existing column", () => {
  it("allows the same type and widening casts", () => {
    for (const [from, to] of [
      ["int32", "int32"],
      ["int32", "int64"],
      ["int8", "int16"],
      ["uint8", "int16"],
      ["uint32", "uint64"],
      ["int64", "int128"],
      ["int32", "float64"],
      ["int16", "float32"],
      ["int32", "decimal(10,0)"],
      ["int32", "decimal(12,2)"],
      ["decimal(4,2)", "decimal(10,2)"],
      ["decimal(4,1)", "decimal(5,2)"],
      ["decimal(2,1)", "float64"],
      ["decimal(6,2)", "float32"],
      ["decimal(9,0)", "int32"],
      ["float32", "float64"],
      ["date", "timestamp"],
      ["timestamp_s", "timestamp"],
      ["timestamp_ms", "timestamp"],
      ["json", "varchar"],
      ["DECIMAL(4, 2)", "decimal(10,2)"],
    ])
      expect([from, to, castIsExact(from!, to!)]).toEqual([from, to, true]);
  });

  it("refuses a cast that could round, truncate, overflow or reinterpret a value", () => {
    for (const [from, to] of [
      ["float64", "int32"],
      ["float64", "int64"],
      ["float64", "float32"],
      ["float64", "decimal(18,3)"],
      ["int64", "int32"],
      ["int32", "uint32"],
      ["uint32", "int32"],
      ["int64", "float64"],
      ["int32", "float32"],
      ["int128", "int64"],
      ["int32", "decimal(9,0)"],
      ["decimal(10,2)", "decimal(10,1)"],
      ["decimal(10,2)", "decimal(9,2)"],
      ["decimal(10,2)", "int64"],
      ["decimal(18,2)", "float64"],
      ["decimal(10,0)", "int32"],
      ["timestamp", "date"],
      ["timestamp", "timestamp_ms"],
      ["timestamp", "timestamp_ns"],
      ["timestamp", "timestamptz"],
      ["varchar", "int32"],
      ["int32", "varchar"],
      ["varchar", "json"],
      ["boolean", "int32"],
    ])
      expect([from, to, castIsExact(from!, to!)]).toEqual([from, to, false]);
  });

  it("lists the slice's lossy columns and names table, column and both types in the error", () => {
    const table = [
      { name: "id", type: "int64" },
      { name: "x", type: "int32" },
      { name: "y", type: "varchar" },
    ];
    const lossy = lossyColumns(table, [
      { name: "id", lakeType: "int32" },
      { name: "x", lakeType: "float64" },
      { name: "new", lakeType: "float64" },
    ]);
    expect(lossy).toEqual([{ name: "x", from: "float64", to: "int32" }]);
    const err = new LossyCastError("main.t", lossy);
    expect(err.code).toBe("LAKE_CAST_LOSSY");
    expect(err.terminal).toBe(true);
    expect(err.message).toMatch(
      /^table main\.t: column x is DOUBLE in the SELECT but INTEGER in the table, .*CAST\(x AS INTEGER\)/,
    );
    expect(err.message).toContain("replace the whole table");
  });
});
