import { describe, expect, it } from "vitest";
import { parseAnnotations } from "./annotations.js";

const ts = (...lines: string[]) => parseAnnotations(["// pipeline", ...lines].join("\n"), { language: "typescript" });
const codes = (r: ReturnType<typeof ts>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// partitioned <kind>", () => {
  it.each([
    ["daily", { kind: "daily", tz: "UTC", format: "%Y-%m-%d" }],
    ["hourly", { kind: "hourly", tz: "UTC", format: "%Y-%m-%dT%H" }],
    ["weekly", { kind: "weekly", tz: "UTC", format: "%G-W%V" }],
    ["monthly", { kind: "monthly", tz: "UTC", format: "%Y-%m" }],
  ])("%s with defaults", (kind, spec) => {
    const r = ts(`// partitioned ${kind}`);
    expect(r.annotations.partitioned).toEqual({ spec, line: 2 });
    expect(r.diagnostics).toEqual([]);
  });

  it('hourly + start="2026-01-01"', () => {
    expect(ts('// partitioned hourly start="2026-01-01"').annotations.partitioned?.spec).toEqual({
      kind: "hourly",
      tz: "UTC",
      format: "%Y-%m-%dT%H",
      start: "2026-01-01",
    });
  });

  it('daily + tz="America/New_York" format="%Y/%m/%d"', () => {
    expect(ts('// partitioned daily tz="America/New_York" format="%Y/%m/%d"').annotations.partitioned?.spec).toEqual({
      kind: "daily",
      tz: "America/New_York",
      format: "%Y/%m/%d",
    });
  });

  it('dynamic key="$.tenant_id"', () => {
    expect(ts('// partitioned dynamic key="$.tenant_id"').annotations.partitioned?.spec).toEqual({
      kind: "dynamic",
      key: "$.tenant_id",
    });
  });

  it("accepts single-quoted and bare option values", () => {
    expect(ts("// partitioned daily tz='Europe/Paris' start=2026-01-01").annotations.partitioned?.spec).toMatchObject({
      tz: "Europe/Paris",
      start: "2026-01-01",
    });
  });
});

describe("// partitioned: ignored forms (warnings, defaults kept)", () => {
  it("no kind", () => {
    const r = ts("// partitioned");
    expect(r.annotations.partitioned).toBeUndefined();
    expect(codes(r)).toEqual(["warning:2:PARTITIONED_EMPTY"]);
  });

  it("an unknown kind leaves the script unpartitioned", () => {
    const r = ts("// partitioned yearly");
    expect(r.annotations.partitioned).toBeUndefined();
    expect(codes(r)).toEqual(["warning:2:PARTITIONED_KIND_UNKNOWN"]);
  });

  it("unknown options are ignored", () => {
    const r = ts('// partitioned daily zone="UTC" lookback=3 fast');
    expect(r.annotations.partitioned?.spec).toEqual({ kind: "daily", tz: "UTC", format: "%Y-%m-%d" });
    expect(codes(r)).toEqual([
      "warning:2:PARTITIONED_OPTION_UNKNOWN",
      "warning:2:PARTITIONED_OPTION_UNKNOWN",
      "warning:2:PARTITIONED_OPTION_UNKNOWN",
    ]);
  });

  it("key= on a time kind and tz=/format=/start= on dynamic are ignored", () => {
    const t = ts('// partitioned daily key="$.x"');
    expect(t.annotations.partitioned?.spec).toEqual({ kind: "daily", tz: "UTC", format: "%Y-%m-%d" });
    expect(codes(t)).toEqual(["warning:2:PARTITIONED_OPTION_NOT_APPLICABLE"]);
    const d = ts('// partitioned dynamic key="$.t" tz="UTC" format="%Y" start="2026-01-01"');
    expect(d.annotations.partitioned?.spec).toEqual({ kind: "dynamic", key: "$.t" });
    expect(codes(d)).toHaveLength(3);
  });

  it("a repeated option keeps the first value", () => {
    const r = ts('// partitioned daily tz="Europe/Paris" tz="UTC"');
    expect(r.annotations.partitioned?.spec).toMatchObject({ tz: "Europe/Paris" });
    expect(codes(r)).toEqual(["warning:2:PARTITIONED_OPTION_REPEATED"]);
  });

  it("an unterminated quote is ignored", () => {
    const r = ts('// partitioned daily tz="Europe/Paris');
    expect(r.annotations.partitioned?.spec).toMatchObject({ tz: "UTC" });
    expect(codes(r)).toEqual(["warning:2:PARTITIONED_OPTION_MALFORMED"]);
  });

  it("at most one per script: the first wins", () => {
    const r = ts("// partitioned daily", "// partitioned hourly");
    expect(r.annotations.partitioned?.spec.kind).toBe("daily");
    expect(codes(r)).toEqual(["warning:3:DUPLICATE_IGNORED"]);
  });

  it("an ignored (unknown-kind) line does not claim the slot", () => {
    const r = ts("// partitioned yearly", "// partitioned monthly");
    expect(r.annotations.partitioned?.spec.kind).toBe("monthly");
  });

  it("a lossy format is loaded with advice", () => {
    const r = ts('// partitioned daily format="%Y-%m"');
    expect(r.annotations.partitioned?.spec).toMatchObject({ format: "%Y-%m" });
    expect(codes(r)).toEqual(["warning:2:PARTITIONED_FORMAT_LOSSY"]);
  });
});

describe("// partitioned: errors (the seed fails the run; Sluice rejects at load)", () => {
  it.each([
    ['// partitioned daily tz="Mars/Base"', "PARTITION_TZ_INVALID"],
    ['// partitioned hourly start="2026-02-30"', "PARTITION_START_INVALID"],
    ['// partitioned weekly start="01/01/2026"', "PARTITION_START_INVALID"],
    ['// partitioned daily format="%Q"', "PARTITION_FORMAT_INVALID"],
    ['// partitioned daily format="%Y %m %d"', "PARTITION_FORMAT_INVALID"],
    ["// partitioned dynamic", "PARTITION_KEY_REQUIRED"],
    ['// partitioned dynamic key="$.items[0]"', "PARTITION_KEY_INVALID"],
    ['// partitioned dynamic key="tenant_id"', "PARTITION_KEY_INVALID"],
  ])("%s → %s", (line, code) => {
    const r = ts(line);
    expect(r.annotations.partitioned).toBeUndefined();
    expect(codes(r)).toEqual([`error:2:${code}`]);
    expect(r.diagnostics[0]?.message.length).toBeGreaterThan(30);
  });

  it("an erroring line still claims the slot: later lines are ignored", () => {
    const r = ts('// partitioned daily tz="Nope"', "// partitioned daily");
    expect(r.annotations.partitioned).toBeUndefined();
    expect(codes(r)).toEqual(["error:2:PARTITION_TZ_INVALID", "warning:3:DUPLICATE_IGNORED"]);
  });
});
