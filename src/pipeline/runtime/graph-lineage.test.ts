import { describe, expect, it } from "vitest";
import { edgeLineage } from "./graph-lineage.js";
import type { LineageRecord } from "./lineage-record.js";
import type { StaticLineage } from "./static-lineage.js";

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
const recordedOnly = (r: LineageRecord) => ({ recorded: new Map([[r.asset, r]]), inferred: new Map() });

describe("edgeLineage", () => {
  it("gives the recorded lineage to the script that wrote it", () => {
    expect(edgeLineage(recordedOnly(record), "f/a.sql", URI, annotated)).toEqual({
      source: "recorded",
      snapshot_id: 4,
      run: "r1",
      at: 1000,
      columns: record.columns,
      warnings: ["w"],
    });
  });

  it("falls back to the script's // column lines, then to null; other assets get no field", () => {
    const lineage = recordedOnly(record);
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

  it("before a write, a managed SQL script's inferred lineage, merged with its // column lines", () => {
    const inferred: StaticLineage = {
      asset: URI,
      result: {
        columns: [
          { output: "x", sources: [{ table: "ducklake://main/src", column: "x" }], passthrough: true },
          { output: "y", sources: [], passthrough: false, unknown: true },
          { output: "w", sources: [], passthrough: false, unknown: true },
        ],
        warnings: ["the sources of y are unknown"],
        partial: false,
      },
      warnings: ["the sources of y are unknown"],
    };
    const lineage = { recorded: new Map([[URI, record]]), inferred: new Map([["f/b.sql", inferred]]) };
    expect(edgeLineage(lineage, "f/b.sql", URI, annotated)).toEqual({
      source: "static",
      snapshot_id: null,
      run: null,
      at: null,
      columns: [
        {
          output: "x",
          sources: [{ table: "ducklake://main/src", column: "x" }],
          passthrough: true,
          origin: "inferred",
        },
        // the annotation wins over an unknown
        {
          output: "y",
          sources: [{ table: "ducklake://main/src", column: "z" }],
          passthrough: false,
          origin: "annotation",
        },
        { output: "w", sources: [], passthrough: false, origin: "unknown" },
      ],
      warnings: ["the sources of y are unknown"],
    });
    // the recorded lineage of the script that wrote it still comes first
    expect(edgeLineage(lineage, "f/a.sql", URI, [])?.source).toBe("recorded");
    // a SELECT DuckDB could not parse: the // column lines (or nothing) and why
    const failed = new Map([["f/b.sql", { asset: URI, result: undefined, warnings: ["cannot parse"] }]]);
    const unparsed = edgeLineage({ recorded: new Map(), inferred: failed }, "f/b.sql", URI, []);
    expect(unparsed).toEqual({
      source: "annotations",
      snapshot_id: null,
      run: null,
      at: null,
      columns: [],
      warnings: ["cannot parse"],
    });
  });
});
