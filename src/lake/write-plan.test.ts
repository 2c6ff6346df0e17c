import { describe, expect, it } from "vitest";
import type { LakeColumn } from "./types.js";
import { planKeepColumns, planNewTable, planReplaceColumns } from "./write-plan.js";

const col = (columnId: number, name: string, type: string, order: number): LakeColumn => ({
  columnId,
  name,
  type,
  order,
  tableId: 1,
  beginSnapshot: 1,
  endSnapshot: null,
  initialDefault: null,
  defaultValue: null,
  nullsAllowed: true,
  parentColumn: null,
});

describe("write column plans", () => {
  const current = [col(1, "id", "int64", 1), col(2, "name", "varchar", 2), col(3, "amount", "decimal(10,2)", 3)];

  it("numbers a new table's columns from 1", () => {
    expect(
      planNewTable([
        { name: "a", lakeType: "int32" },
        { name: "b", lakeType: "varchar" },
      ]).columns.map((c) => [c.columnId, c.name, c.order]),
    ).toEqual([
      [1, "a", 1],
      [2, "b", 2],
    ]);
    expect(() =>
      planNewTable([
        { name: "a", lakeType: "int32" },
        { name: "a", lakeType: "int32" },
      ]),
    ).toThrow(/two columns named "a"/);
  });

  it("keeps the table's columns for appends and refuses new ones", () => {
    const plan = planKeepColumns(current, [{ name: "id", lakeType: "int32" }], "main.t");
    expect(plan.columns.map((c) => [c.name, c.inSource])).toEqual([
      ["id", true],
      ["name", false],
      ["amount", false],
    ]);
    expect(() => planKeepColumns(current, [{ name: "zzz", lakeType: "int32" }], "main.t")).toThrow(
      /zzz that table main.t does not have/,
    );
  });

  it("widens a column by DuckLake's type promotions only, as a new version with the same id", () => {
    const narrow = [col(1, "id", "int32", 1), col(2, "f", "float32", 2), col(3, "u", "uint32", 3)];
    const plan = planKeepColumns(
      narrow,
      [
        { name: "id", lakeType: "int64" },
        { name: "f", lakeType: "float64" },
        { name: "u", lakeType: "uint16" },
      ],
      "main.t",
    );
    expect(plan.columns.map((c) => [c.columnId, c.lakeType])).toEqual([
      [1, "int64"],
      [2, "float64"],
      [3, "uint32"],
    ]);
    expect([plan.ended, plan.added.map((c) => c.columnId)]).toEqual([
      [1, 2],
      [1, 2],
    ]);
    // int64 → int128 and uint32 → int64 are not DuckLake promotions
    expect(() => planKeepColumns(current, [{ name: "id", lakeType: "int128" }], "main.t")).toThrow(
      /column id is HUGEINT in the SELECT but BIGINT in the table/,
    );
    expect(() => planKeepColumns(narrow, [{ name: "u", lakeType: "int64" }], "main.t")).toThrow(/type promotions/);
  });

  it("follows the slice on a whole-table replace: kept, moved, retyped, added and dropped columns", () => {
    const plan = planReplaceColumns(
      current,
      [
        { name: "id", lakeType: "int64" },
        { name: "amount", lakeType: "decimal(10,2)" },
        { name: "name", lakeType: "int32" },
        { name: "extra", lakeType: "date" },
      ],
      3,
    );
    expect(plan.columns.map((c) => [c.columnId, c.name, c.order])).toEqual([
      [1, "id", 1],
      [3, "amount", 2],
      [4, "name", 3],
      [5, "extra", 4],
    ]);
    expect([...plan.ended].sort()).toEqual([2, 3]);
    expect(plan.added.map((c) => c.columnId)).toEqual([3, 4, 5]);
    const same = planReplaceColumns(
      current,
      current.map((c) => ({ name: c.name, lakeType: c.type })),
      3,
    );
    expect([same.ended, same.added]).toEqual([[], []]);
  });
});
