import { describe, expect, it } from "vitest";
import { parseAnnotations, resolveLanguage } from "./annotations.js";

const ts = (...lines: string[]) => parseAnnotations(lines.join("\n"), { language: "typescript" });
const codes = (r: ReturnType<typeof ts>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("comment prefixes and placement", () => {
  it("accepts //, # and -- in any language, anywhere in the file", () => {
    const r = parseAnnotations(
      [
        "import x from 'y';",
        "# pipeline",
        "const a = 1;",
        "-- on s3://a/b",
        "export async function main() {",
        "  // tag gpu",
        "}",
      ].join("\n"),
      { path: "f/x/step.ts" },
    );
    expect(r.language).toBe("typescript");
    expect(r.annotations.pipeline).toBe(true);
    expect(r.annotations.inputs.map((i) => i.asset.uri)).toEqual(["s3://a/b"]);
    expect(r.annotations.tag).toEqual({ name: "gpu", line: 6 });
    expect(r.diagnostics).toEqual([]);
  });

  it("reads Python and SQL scripts with their prefixes", () => {
    const py = parseAnnotations("# pipeline\n# on $res:f/team/config\n", { path: "f/x/a.py" });
    expect(py.annotations.inputs[0]?.asset.uri).toBe("$res:f/team/config");
    const sql = parseAnnotations("-- pipeline\n-- partitioned monthly\nSELECT 1", { path: "f/x/a.sql" });
    expect(sql.annotations.partitioned?.spec.kind).toBe("monthly");
  });

  it("handles CRLF line endings and reports 1-based lines", () => {
    const r = parseAnnotations("// pipeline\r\n\r\n// retry 0\r\n", { language: "typescript" });
    expect(r.annotations.pipeline).toBe(true);
    expect(codes(r)).toEqual(["warning:3:RETRY_COUNT_INVALID"]);
  });

  it("ignores comment text that is not inside a comment line", () => {
    const r = ts("const url = 'x'; // pipeline", "let y = 2 # on s3://a/b");
    expect(r.annotations.pipeline).toBe(false);
    expect(r.annotations.inputs).toEqual([]);
  });

  it("returns defaults for a script without annotations", () => {
    expect(ts("export async function main() {}").annotations).toEqual({
      pipeline: false,
      inputs: [],
      nativeTriggers: [],
      trigger: "any",
      dataTests: [],
      columns: [],
      assetOverrides: [],
    });
  });
});

describe("unknown annotations are ignored, not failed", () => {
  it("prose comments produce no diagnostics", () => {
    const r = ts(
      "// pipeline",
      "// fetch events from the API",
      "// TODO: tidy",
      "# !/usr/bin/env bash",
      "/// triple slash",
      "//",
    );
    expect(r.diagnostics).toEqual([]);
  });

  it("a keyword glued to its value is reported (whitespace after the keyword is required)", () => {
    const r = ts("// pipeline", "// freshness2h", "// retry3", "// tag=gpu", "// debounce=30s");
    expect(codes(r)).toEqual([
      "warning:2:ANNOTATION_NEEDS_SPACE",
      "warning:3:ANNOTATION_NEEDS_SPACE",
      "warning:4:ANNOTATION_NEEDS_SPACE",
      "warning:5:ANNOTATION_NEEDS_SPACE",
    ]);
    expect(r.annotations.freshness).toBeUndefined();
    expect(r.annotations.retry).toBeUndefined();
    expect(r.annotations.tag).toBeUndefined();
    expect(r.diagnostics[0]?.message).toContain("put a space after `freshness`");
  });

  it('known wrong forms get a hint: // schedule "<cron>", // partition daily, // materialise, // data-test', () => {
    const r = ts(
      "// pipeline",
      '// schedule "0 * * * *"',
      "// partition daily",
      "// materialise ducklake://a/b",
      "// data-test unique id",
    );
    expect(codes(r)).toEqual([
      "warning:2:ANNOTATION_UNKNOWN",
      "warning:3:ANNOTATION_UNKNOWN",
      "warning:4:ANNOTATION_UNKNOWN",
      "warning:5:ANNOTATION_UNKNOWN",
    ]);
    expect(r.diagnostics[0]?.message).toContain("// on schedule");
    expect(r.diagnostics[1]?.message).toContain("// partitioned");
    expect(r.annotations.partitioned).toBeUndefined();
  });

  it("prose starting with such words is left alone", () => {
    expect(ts("// schedule this for later", "// partition the data by day").diagnostics).toEqual([]);
  });

  it("wrong-case keywords are ignored with a hint when they read like the annotation", () => {
    const r = ts(
      "// Pipeline",
      "// On s3://a/b",
      "// Partitioned daily",
      "// Trigger all",
      "// Pipeline for the daily report",
    );
    expect(r.annotations.pipeline).toBe(false);
    expect(r.annotations.inputs).toEqual([]);
    expect(codes(r)).toEqual([
      "warning:1:ANNOTATION_WRONG_CASE",
      "warning:2:ANNOTATION_WRONG_CASE",
      "warning:3:ANNOTATION_WRONG_CASE",
      "warning:4:ANNOTATION_WRONG_CASE",
    ]);
  });
});

describe("annotations without // pipeline", () => {
  it("warns once that triggers and options need the marker", () => {
    const r = ts("// retry 3", "// on s3://a/b", "// partitioned daily");
    expect(codes(r)).toEqual(["warning:2:NOT_A_PIPELINE_MEMBER"]);
    expect(r.annotations.pipeline).toBe(false);
    expect(r.annotations.inputs).toHaveLength(1);
  });

  it("does not warn for annotations that work without membership (// asset)", () => {
    expect(ts("// asset write s3://a/b").diagnostics).toEqual([]);
  });

  it("stays quiet about prose in scripts that are not pipeline members", () => {
    const r = ts(
      "// on error, retry with backoff",
      "// retry later",
      "// tag the rows we keep",
      "// trigger the upload",
      "// freshness matters",
    );
    expect(r.diagnostics).toEqual([]);
    expect(ts("// pipeline", "// on error, retry").diagnostics.map((d) => d.code)).toEqual(["ON_URI_UNRECOGNIZED"]);
  });

  it("still reports errors in non-member scripts", () => {
    expect(codes(ts('// partitioned daily tz="Nowhere"'))).toEqual([
      "error:1:PARTITION_TZ_INVALID",
      "warning:1:NOT_A_PIPELINE_MEMBER",
    ]);
  });
});

describe("resolveLanguage", () => {
  it("prefers the explicit language, then the path, then the prefix", () => {
    expect(resolveLanguage({ language: "sql", path: "a.ts" })).toBe("sql");
    expect(resolveLanguage({ path: "a.py", commentPrefix: "--" })).toBe("python");
    expect(resolveLanguage({ path: "f/a/noext", commentPrefix: "--" })).toBe("sql");
    expect(resolveLanguage({})).toBe("unknown");
  });
});
