import { describe, expect, it } from "vitest";
import { edgeLineage } from "./graph-lineage.js";
import type { LineageRecord } from "./lineage-record.js";

const URI = "ducklake://main/enriched";
const record: LineageRecord = {
  asset: URI,
  script: "f/a.sql",
  run: "r1",
  snapshot_id: 4,
  at: 1000,
  columns: [{ output: "x", sources: [{ table: "t", column: "x" }], passthrough: true, origin: "inferred" }],
  warnings: ["w"],
};
const annotated = [{ output: "y", sources: [{ asset: "ducklake://main/src", column: "z" }], lines: [3] }];

describe("edgeLineage", () => {
  it("gives the recorded lineage to the script that wrote it", () => {
    expect(edgeLineage(new Map([[URI, record]]), "f/a.sql", URI, annotated)).toEqual({
      source: "recorded",
      snapshot_id: 4,
      run: "r1",
      at: 1000,
      columns: record.columns,
      warnings: ["w"],
    });
  });

  it("falls back to the script's // column lines, then to null; other assets get no field", () => {
    const lineage = new Map([[URI, record]]);
    expect(edgeLineage(lineage, "f/b.sql", URI, annotated)).toEqual({
      source: "annotations",
      snapshot_id: null,
      run: null,
      at: null,
      columns: [
        {
          output: "y",
          sources: [{ table: "ducklake://main/src", column: "z" }],
          passthrough: false,
          origin: "annotation",
        },
      ],
      warnings: [],
    });
    expect(edgeLineage(lineage, "f/b.sql", URI, [])).toBeNull();
    expect(edgeLineage(lineage, "f/a.sql", "s3://bucket/x.json", annotated)).toBeUndefined();
    expect(edgeLineage(lineage, "f/a.sql", "ducklake://main", annotated)).toBeUndefined();
  });
});
