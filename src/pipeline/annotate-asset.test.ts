import { describe, expect, it } from "vitest";
import { parseAnnotations } from "./annotations.js";

const ts = (...lines: string[]) => parseAnnotations(lines.join("\n"), { language: "typescript" });
const codes = (r: ReturnType<typeof ts>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// asset <access> <uri> (manual read/write override)", () => {
  it("records each access mode", () => {
    const r = ts(
      "// asset read s3://a/in",
      "// asset write s3://a/out",
      "// asset readwrite $res:f/x/y",
      "// asset rw volume://v",
      "// asset ignore s3://a/tmp",
    );
    expect(r.annotations.assetOverrides.map((o) => [o.asset.uri, o.access, o.line])).toEqual([
      ["s3://a/in", "read", 1],
      ["s3://a/out", "write", 2],
      ["$res:f/x/y", "readwrite", 3],
      ["volume://v", "readwrite", 4],
      ["s3://a/tmp", "ignore", 5],
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  it("accepts {partition} templates", () => {
    expect(ts("// asset write s3://lake/{partition}/x").annotations.assetOverrides[0]?.asset.partitioned).toBe(true);
  });

  it("ignores malformed overrides with a warning", () => {
    const r = ts(
      "// asset write",
      "// asset write s3://a s3://b",
      "// asset delete s3://a",
      "// asset write s3://a/../b",
    );
    expect(r.annotations.assetOverrides).toEqual([]);
    expect(codes(r)).toEqual([
      "warning:1:ASSET_OVERRIDE_MALFORMED",
      "warning:2:ASSET_OVERRIDE_MALFORMED",
      "warning:3:ASSET_ACCESS_UNKNOWN",
      "warning:4:ASSET_URI_INVALID",
    ]);
  });

  it("leaves prose alone", () => {
    expect(ts("// asset loading helpers below").diagnostics).toEqual([]);
  });

  it("first wins for one URI", () => {
    const r = ts("// asset write s3://a/b", "// asset write s3://a/b", "// asset read s3://a/b");
    expect(r.annotations.assetOverrides).toHaveLength(1);
    expect(codes(r)).toEqual(["warning:3:DUPLICATE_IGNORED"]);
  });
});
