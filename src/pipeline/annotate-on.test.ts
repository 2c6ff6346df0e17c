import { describe, expect, it } from "vitest";
import { NATIVE_TRIGGER_KINDS, partitionBearingInputs } from "./annotation-types.js";
import { parseAnnotations } from "./annotations.js";

const ts = (...lines: string[]) => parseAnnotations(["// pipeline", ...lines].join("\n"), { language: "typescript" });
const codes = (r: ReturnType<typeof ts>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// on <asset-uri>", () => {
  it.each([
    "s3://datasets/raw/events.parquet",
    "$res:f/team/config",
    "datatable://main",
    "ducklake://lake",
    "volume://name",
  ])("accepts %s as an input", (uri) => {
    const r = ts(`// on ${uri}`);
    expect(r.annotations.inputs).toEqual([{ asset: expect.objectContaining({ uri }), line: 2 }]);
    expect(r.diagnostics).toEqual([]);
  });

  it("normalises the URI", () => {
    expect(ts("// on S3:///demo/raw.json").annotations.inputs[0]?.asset.uri).toBe("s3://demo/raw.json");
    expect(ts("// on res://f/team/pg").annotations.inputs[0]?.asset.uri).toBe("$res:f/team/pg");
  });

  it("marks {partition} inputs partition-bearing", () => {
    const r = ts(
      "// on s3://lake/raw/events/{partition}/events.parquet",
      "// on s3://lake/dim/customers/current.parquet",
    );
    expect(r.annotations.inputs.map((i) => i.asset.partitioned)).toEqual([true, false]);
    expect(partitionBearingInputs(r.annotations).map((i) => i.line)).toEqual([2]);
  });

  it("an unrecognised URI is ignored", () => {
    const r = ts("// on https://example.com/x", "// on f/team/pg", "// on the other hand");
    expect(r.annotations.inputs).toEqual([]);
    expect(codes(r)).toEqual([
      "warning:2:ON_URI_UNRECOGNIZED",
      "warning:3:ON_URI_UNRECOGNIZED",
      "warning:4:ON_URI_UNRECOGNIZED",
    ]);
  });

  it("an invalid URI of a known scheme is ignored with the reason", () => {
    const r = ts("// on s3://lake/{date}/x", "// on s3://a/../b");
    expect(r.annotations.inputs).toEqual([]);
    expect(codes(r)).toEqual(["warning:2:ON_URI_INVALID", "warning:3:ON_URI_INVALID"]);
    expect(r.diagnostics[0]?.message).toContain("{partition}");
  });

  it("duplicate identical lines are de-duplicated silently", () => {
    const r = ts("// on s3://a/b", "// on s3://a/b", "// on s3:///a/b");
    expect(r.annotations.inputs).toHaveLength(1);
    expect(r.annotations.inputs[0]?.line).toBe(2);
    expect(r.diagnostics).toEqual([]);
  });

  it("the same asset with a different debounce keeps the first", () => {
    const r = ts("// on s3://a/b debounce=30s", "// on s3://a/b debounce=1m");
    expect(r.annotations.inputs).toHaveLength(1);
    expect(r.annotations.inputs[0]?.debounce?.seconds).toBe(30);
    expect(codes(r)).toEqual(["warning:3:DUPLICATE_IGNORED"]);
  });

  it("debounce= is the only inline option", () => {
    const r = ts("// on s3://a/b debounce=30s");
    expect(r.annotations.inputs[0]).toEqual({
      asset: expect.objectContaining({ uri: "s3://a/b" }),
      debounce: { raw: "30s", seconds: 30 },
      line: 2,
    });
  });

  it("a malformed debounce= is dropped: the input stays, with no per-input window", () => {
    for (const bad of ["0", "x", "5w", ""]) {
      const r = ts(`// on s3://a/b debounce=${bad}`);
      expect(r.annotations.inputs).toHaveLength(1);
      expect(r.annotations.inputs[0]?.debounce).toBeUndefined();
      expect(codes(r)).toEqual(["warning:2:ON_DEBOUNCE_INVALID"]);
    }
  });

  it("unknown options are ignored; the input still counts", () => {
    const r = ts("// on s3://a/b retries=3", "// on s3://c/d debounce = 30s");
    expect(r.annotations.inputs).toHaveLength(2);
    expect(r.annotations.inputs[1]?.debounce?.seconds).toBe(30);
    expect(codes(r)).toEqual(["warning:2:ON_OPTION_UNKNOWN"]);
  });

  it("one asset per line", () => {
    const r = ts("// on s3://a/b s3://c/d");
    expect(r.annotations.inputs.map((i) => i.asset.uri)).toEqual(["s3://a/b"]);
    expect(codes(r)).toEqual(["warning:2:ON_EXTRA_URI"]);
  });

  it("a repeated debounce= on one line keeps the first", () => {
    const r = ts("// on s3://a/b debounce=30s debounce=1m");
    expect(r.annotations.inputs[0]?.debounce?.seconds).toBe(30);
    expect(codes(r)).toEqual(["warning:2:ON_DEBOUNCE_REPEATED"]);
  });

  it("an empty // on is ignored", () => {
    const r = ts("// on");
    expect(codes(r)).toEqual(["warning:2:ON_EMPTY"]);
  });
});

describe("// on <native trigger kind>", () => {
  it.each([...NATIVE_TRIGGER_KINDS])("accepts %s as a bare marker", (kind) => {
    const r = ts(`// on ${kind}`);
    expect(r.annotations.nativeTriggers).toEqual([{ kind, line: 2 }]);
    expect(r.annotations.inputs).toEqual([]);
    expect(r.diagnostics).toEqual([]);
  });

  it("several kinds combine; duplicates are de-duplicated", () => {
    const r = ts("// on schedule", "// on kafka", "// on webhook", "// on schedule");
    expect(r.annotations.nativeTriggers.map((t) => t.kind)).toEqual(["schedule", "kafka", "webhook"]);
    expect(r.diagnostics).toEqual([]);
  });

  it("anything after the keyword makes the line malformed (ignored)", () => {
    const r = ts("// on kafka f/foo", '// on schedule "0 * * * *"', "// on kafka debounce=30s");
    expect(r.annotations.nativeTriggers).toEqual([]);
    expect(codes(r)).toEqual([
      "warning:2:ON_TRIGGER_MALFORMED",
      "warning:3:ON_TRIGGER_MALFORMED",
      "warning:4:ON_TRIGGER_MALFORMED",
    ]);
    expect(r.diagnostics[0]?.message).toContain("on the kafka trigger itself");
  });

  it("kinds are lower-case; a wrong-case kind is ignored with a hint", () => {
    const r = ts("// on Schedule");
    expect(r.annotations.nativeTriggers).toEqual([]);
    expect(r.diagnostics[0]?.message).toContain("write `// on schedule`");
  });

  it("unknown kinds are ignored", () => {
    const r = ts("// on cron", "// on rabbitmq");
    expect(r.annotations.nativeTriggers).toEqual([]);
    expect(codes(r)).toEqual(["warning:2:ON_URI_UNRECOGNIZED", "warning:3:ON_URI_UNRECOGNIZED"]);
  });
});
