import { describe, expect, it } from "vitest";
import type { LineageResult } from "./column-lineage.js";
import { lineageThrough } from "./lineage-through.js";

const lineage = (columns: LineageResult["columns"]): LineageResult => ({ columns, warnings: [], partial: false });
const ORDERS = "ducklake://main/orders";

describe("lineageThrough", () => {
  const big = lineage([
    { output: "id", sources: [{ table: ORDERS, column: "id" }], passthrough: true },
    { output: "dbl", sources: [{ table: ORDERS, column: "amount" }], passthrough: false },
    {
      output: "both",
      sources: [
        { table: ORDERS, column: "amount" },
        { table: ORDERS, column: "tax" },
      ],
      passthrough: false,
    },
    { output: "note", sources: [], passthrough: false, unknown: true },
  ]);

  it("replaces a temp table's column by what it was made from; passthrough only when every hop is one", () => {
    const out = lineageThrough(
      lineage([
        { output: "id", sources: [{ table: "big", column: "id" }], passthrough: true },
        { output: "renamed", sources: [{ table: "big", column: "dbl" }], passthrough: true },
        {
          output: "sum",
          sources: [
            { table: "big", column: "both" },
            { table: "big", column: "dbl" },
            { table: "other", column: "x" },
          ],
          passthrough: false,
        },
      ]),
      new Map([["big", big]]),
    );
    expect(out.columns).toEqual([
      { output: "id", sources: [{ table: ORDERS, column: "id" }], passthrough: true },
      { output: "renamed", sources: [{ table: ORDERS, column: "amount" }], passthrough: false },
      {
        output: "sum",
        sources: [
          { table: ORDERS, column: "amount" },
          { table: ORDERS, column: "tax" },
          { table: "other", column: "x" },
        ],
        passthrough: false,
      },
    ]);
  });

  it("an output reading an unknown temp column is unknown; a column the temp lineage does not list stays", () => {
    const out = lineageThrough(
      lineage([
        { output: "n", sources: [{ table: "big", column: "note" }], passthrough: true },
        { output: "m", sources: [{ table: "big", column: "missing" }], passthrough: true },
        { output: "u", sources: [], passthrough: false, unknown: true },
      ]),
      new Map([["big", big]]),
    );
    expect(out.columns).toEqual([
      { output: "n", sources: [], passthrough: false, unknown: true },
      { output: "m", sources: [{ table: "big", column: "missing" }], passthrough: true },
      { output: "u", sources: [], passthrough: false, unknown: true },
    ]);
  });

  it("leaves lineage without temp tables as it is", () => {
    const r = lineage([{ output: "id", sources: [{ table: ORDERS, column: "id" }], passthrough: true }]);
    expect(lineageThrough(r, new Map())).toBe(r);
    expect(lineageThrough(r, new Map([["big", big]])).columns).toEqual(r.columns);
  });
});
