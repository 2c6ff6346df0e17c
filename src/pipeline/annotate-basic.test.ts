import { describe, expect, it } from "vitest";
import { effectiveDebounce } from "./annotation-types.js";
import { parseAnnotations } from "./annotations.js";

const ts = (...lines: string[]) =>
  parseAnnotations(["// pipeline", "// on s3://in/x", ...lines].join("\n"), { language: "typescript" });
const codes = (r: ReturnType<typeof ts>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// pipeline (bare marker)", () => {
  it("marks the script a member", () => {
    expect(parseAnnotations("// pipeline", {}).annotations.pipeline).toBe(true);
  });

  it("repeats are harmless", () => {
    const r = parseAnnotations("// pipeline\n// pipeline", {});
    expect(r.annotations.pipeline).toBe(true);
    expect(r.diagnostics).toEqual([]);
  });

  it("text after the marker makes the line ignored", () => {
    const r = parseAnnotations("// pipeline daily", {});
    expect(r.annotations.pipeline).toBe(false);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["PIPELINE_NOT_BARE"]);
  });
});

describe("// trigger any | all", () => {
  it("defaults to any", () => {
    expect(ts().annotations.trigger).toBe("any");
    expect(ts().annotations.triggerLine).toBeUndefined();
  });

  it("// trigger any (explicit)", () => {
    expect(ts("// trigger any").annotations).toMatchObject({ trigger: "any", triggerLine: 3 });
  });

  it("// trigger all with a partition-bearing input", () => {
    const r = parseAnnotations("// pipeline\n// on s3://l/{partition}/x\n// trigger all", {});
    expect(r.annotations.trigger).toBe("all");
    expect(r.diagnostics).toEqual([]);
  });

  it("an unknown value is ignored and any is kept", () => {
    const r = ts("// trigger both");
    expect(r.annotations.trigger).toBe("any");
    expect(codes(r)).toEqual(["warning:3:TRIGGER_VALUE_UNKNOWN"]);
  });

  it("first wins; a conflicting later line warns, an identical one is silent", () => {
    const r = ts("// trigger any", "// trigger any", "// trigger all");
    expect(r.annotations.trigger).toBe("any");
    expect(codes(r)).toEqual(["warning:5:DUPLICATE_IGNORED"]);
  });
});

describe("// debounce <duration> and per-input debounce=", () => {
  it("sets the script-level window", () => {
    expect(ts("// debounce 1m").annotations.debounce).toEqual({ duration: { raw: "1m", seconds: 60 }, line: 3 });
  });

  it("malformed, non-positive or unknown units resolve to no debounce (fan-out)", () => {
    for (const bad of ["0", "-1m", "5w", "soon", "1m 2s"]) {
      const r = ts(`// debounce ${bad}`);
      expect(r.annotations.debounce).toBeUndefined();
      expect(codes(r)).toEqual(["warning:3:DEBOUNCE_INVALID"]);
    }
  });

  it("first wins", () => {
    const r = ts("// debounce 1m", "// debounce 5m");
    expect(r.annotations.debounce?.duration.seconds).toBe(60);
    expect(codes(r)).toEqual(["warning:4:DUPLICATE_IGNORED"]);
  });

  it("effective window: per-input debounce=, else script-level, else none", () => {
    const r = parseAnnotations(
      [
        "// pipeline",
        "// debounce 1m",
        "// on s3://datasets/raw/events.parquet",
        "// on s3://datasets/dim/reference.parquet debounce=30s",
      ].join("\n"),
      {},
    );
    const [events, reference] = r.annotations.inputs;
    expect(effectiveDebounce(r.annotations, events!)?.seconds).toBe(60);
    expect(effectiveDebounce(r.annotations, reference!)?.seconds).toBe(30);
    const none = parseAnnotations("// pipeline\n// on s3://a/b", {});
    expect(effectiveDebounce(none.annotations, none.annotations.inputs[0]!)).toBeUndefined();
  });

  it("has no effect (warning) without asset inputs", () => {
    const r = parseAnnotations("// pipeline\n// on schedule\n// debounce 1m", {});
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DEBOUNCE_NO_INPUTS"]);
  });
});

describe("// freshness <duration> (planned: parsed metadata only)", () => {
  it("parses the SLO", () => {
    expect(ts("// freshness 2h").annotations.freshness).toEqual({ duration: { raw: "2h", seconds: 7200 }, line: 3 });
  });

  it("an empty value is ignored", () => {
    const r = ts("// freshness");
    expect(r.annotations.freshness).toBeUndefined();
    expect(codes(r)).toEqual(["warning:3:FRESHNESS_EMPTY"]);
  });

  it("a malformed value is ignored", () => {
    const r = ts("// freshness daily");
    expect(r.annotations.freshness).toBeUndefined();
    expect(codes(r)).toEqual(["warning:3:FRESHNESS_INVALID"]);
  });

  it("the first one wins (an ignored line does not claim the slot)", () => {
    const r = ts("// freshness soon", "// freshness 30m", "// freshness 1d");
    expect(r.annotations.freshness?.duration.raw).toBe("30m");
    expect(codes(r)).toEqual(["warning:3:FRESHNESS_INVALID", "warning:5:DUPLICATE_IGNORED"]);
  });
});

describe("// tag <name>", () => {
  it("takes the value verbatim", () => {
    expect(ts("// tag gpu").annotations.tag).toEqual({ name: "gpu", line: 3 });
    expect(ts("// tag high-mem_2").annotations.tag?.name).toBe("high-mem_2");
  });

  it("the first // tag wins", () => {
    const r = ts("// tag gpu", "// tag cpu");
    expect(r.annotations.tag?.name).toBe("gpu");
    expect(codes(r)).toEqual(["warning:4:DUPLICATE_IGNORED"]);
  });

  it("an empty tag is ignored", () => {
    const r = ts("// tag");
    expect(r.annotations.tag).toBeUndefined();
    expect(codes(r)).toEqual(["warning:3:TAG_EMPTY"]);
  });

  it("keeps a value with spaces verbatim but points it out", () => {
    const r = ts("// tag gpu pool");
    expect(r.annotations.tag?.name).toBe("gpu pool");
    expect(codes(r)).toEqual(["warning:3:TAG_HAS_SPACE"]);
  });
});

describe("// retry <count> [<delay>]", () => {
  it("count and delay", () => {
    expect(ts("// retry 3 10s").annotations.retry).toEqual({ count: 3, delay: { raw: "10s", seconds: 10 }, line: 3 });
  });

  it("count only", () => {
    expect(ts("// retry 2").annotations.retry).toEqual({ count: 2, line: 3 });
  });

  it("a non-numeric, zero, negative or fractional count is ignored", () => {
    for (const bad of ["three", "0", "-1", "1.5", ""]) {
      const r = ts(`// retry ${bad}`);
      expect(r.annotations.retry).toBeUndefined();
      expect(codes(r)).toEqual(["warning:3:RETRY_COUNT_INVALID"]);
    }
  });

  it("a malformed delay keeps the count without a delay", () => {
    const r = ts("// retry 3 soon");
    expect(r.annotations.retry).toEqual({ count: 3, line: 3 });
    expect(codes(r)).toEqual(["warning:3:RETRY_DELAY_INVALID"]);
  });

  it("extra words are ignored", () => {
    const r = ts("// retry 3 10s please");
    expect(r.annotations.retry?.count).toBe(3);
    expect(codes(r)).toEqual(["warning:3:RETRY_EXTRA_IGNORED"]);
  });

  it("the first valid // retry wins", () => {
    const r = ts("// retry 0", "// retry 3", "// retry 5");
    expect(r.annotations.retry?.count).toBe(3);
    expect(codes(r)).toEqual(["warning:3:RETRY_COUNT_INVALID", "warning:5:DUPLICATE_IGNORED"]);
  });

  it("has no effect (warning) on a script no asset write can dispatch", () => {
    const r = parseAnnotations("// pipeline\n// on schedule\n// retry 3", {});
    expect(r.diagnostics.map((d) => d.code)).toEqual(["RETRY_NO_CASCADE"]);
    expect(r.annotations.retry?.count).toBe(3);
  });
});

describe("// trigger all that can never fire", () => {
  it("is an error when no input is partition-bearing and nothing else triggers the script", () => {
    const r = parseAnnotations("// pipeline\n// on s3://dim/customers.parquet\n// trigger all", {});
    expect(r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`)).toEqual([
      "error:3:TRIGGER_ALL_NO_PARTITION_INPUT",
    ]);
    expect(r.diagnostics[0]?.message).toContain("{partition}");
  });

  it("is a warning when a native trigger still runs the script", () => {
    const r = parseAnnotations("// pipeline\n// on schedule\n// on s3://dim/customers.parquet\n// trigger all", {});
    expect(r.diagnostics.map((d) => `${d.severity}:${d.code}`)).toEqual(["warning:TRIGGER_ALL_NO_PARTITION_INPUT"]);
  });

  it("has no effect without asset inputs", () => {
    const r = parseAnnotations("// pipeline\n// trigger all", {});
    expect(r.diagnostics.map((d) => `${d.severity}:${d.code}`)).toEqual(["warning:TRIGGER_ALL_NO_INPUTS"]);
  });
});
