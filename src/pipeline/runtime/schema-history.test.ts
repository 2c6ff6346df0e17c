import { describe, expect, it } from "vitest";
import { nextSchemaHistory } from "./schema-history.js";

describe("schema history", () => {
  const origin = (snapshot_id: number) => ({ snapshot_id, run: `r${snapshot_id}`, at: snapshot_id });
  it("adds a version only when names, types or order change", () => {
    const a = [
      { name: "id", type: "BIGINT" },
      { name: "x", type: "VARCHAR" },
    ];
    const v1 = nextSchemaHistory([], a, origin(1))!;
    expect(v1.map((v) => v.version)).toEqual([1]);
    expect(nextSchemaHistory(v1, [...a], origin(2))).toBeUndefined();
    const retyped = nextSchemaHistory(
      v1,
      [
        { name: "id", type: "BIGINT" },
        { name: "x", type: "INTEGER" },
      ],
      origin(3),
    )!;
    expect(retyped.map((v) => [v.version, v.snapshot_id])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(nextSchemaHistory(v1, [a[1]!, a[0]!], origin(4))!.at(-1)!.version).toBe(2);
    expect(nextSchemaHistory(v1, [a[0]!], origin(5))!.at(-1)!.columns).toEqual([{ name: "id", type: "BIGINT" }]);
    expect(nextSchemaHistory(v1, [...a, { name: "y", type: "DATE" }], origin(6))!).toHaveLength(2);
  });
});
