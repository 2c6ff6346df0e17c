import { describe, expect, it } from "vitest";
import { PartitionConfigError } from "./errors.js";
import {
  createPartitionSpec,
  DEFAULT_FORMATS,
  formatAdvice,
  isPartitionKind,
  isTimeKind,
  partitionSchemeKey,
} from "./partition-spec.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PartitionConfigError);
    return (e as PartitionConfigError).code;
  }
  return undefined;
}

describe("createPartitionSpec defaults (seed kinds table)", () => {
  it.each([
    ["daily", "%Y-%m-%d"],
    ["hourly", "%Y-%m-%dT%H"],
    ["weekly", "%G-W%V"],
    ["monthly", "%Y-%m"],
  ] as const)("%s defaults to tz=UTC, format %s, no start", (kind, format) => {
    expect(createPartitionSpec(kind)).toEqual({ kind, tz: "UTC", format });
    expect(DEFAULT_FORMATS[kind]).toBe(format);
  });

  it("applies tz, format and start", () => {
    expect(createPartitionSpec("daily", { tz: "America/New_York", format: "%Y/%m/%d", start: "2026-01-01" })).toEqual({
      kind: "daily",
      tz: "America/New_York",
      format: "%Y/%m/%d",
      start: "2026-01-01",
    });
  });

  it("dynamic keeps its key and ignores time options", () => {
    expect(createPartitionSpec("dynamic", { key: "$.tenant_id", tz: "Nope/Zone" })).toEqual({
      kind: "dynamic",
      key: "$.tenant_id",
    });
  });

  it("key= on a time kind is ignored here (the parser warns)", () => {
    expect(createPartitionSpec("daily", { key: "$.x" })).toEqual({ kind: "daily", tz: "UTC", format: "%Y-%m-%d" });
  });
});

describe("createPartitionSpec errors", () => {
  it("invalid tz → PARTITION_TZ_INVALID", () => {
    expect(codeOf(() => createPartitionSpec("daily", { tz: "Mars/Olympus" }))).toBe("PARTITION_TZ_INVALID");
    expect(codeOf(() => createPartitionSpec("hourly", { tz: "+03:00" }))).toBe("PARTITION_TZ_INVALID");
    expect(codeOf(() => createPartitionSpec("hourly", { tz: "" }))).toBe("PARTITION_TZ_INVALID");
  });

  it.each(["2026-13-01", "2026-02-30", "26-01-01", "2026/01/01", "2026-01-01T00", "yesterday"])(
    "invalid start %j → PARTITION_START_INVALID",
    (start) => {
      expect(codeOf(() => createPartitionSpec("daily", { start }))).toBe("PARTITION_START_INVALID");
    },
  );

  it("unsupported or path-unsafe format → PARTITION_FORMAT_INVALID", () => {
    expect(codeOf(() => createPartitionSpec("daily", { format: "%Q" }))).toBe("PARTITION_FORMAT_INVALID");
    expect(codeOf(() => createPartitionSpec("daily", { format: "%Y %m %d" }))).toBe("PARTITION_FORMAT_INVALID");
    expect(codeOf(() => createPartitionSpec("daily", { format: "%e" }))).toBe("PARTITION_FORMAT_INVALID");
    expect(codeOf(() => createPartitionSpec("daily", { format: "../%Y" }))).toBe("PARTITION_FORMAT_INVALID");
    expect(codeOf(() => createPartitionSpec("daily", { format: "" }))).toBe("PARTITION_FORMAT_INVALID");
  });

  it("dynamic without key → PARTITION_KEY_REQUIRED; bad key → PARTITION_KEY_INVALID", () => {
    expect(codeOf(() => createPartitionSpec("dynamic"))).toBe("PARTITION_KEY_REQUIRED");
    expect(codeOf(() => createPartitionSpec("dynamic", { key: "" }))).toBe("PARTITION_KEY_REQUIRED");
    expect(codeOf(() => createPartitionSpec("dynamic", { key: "$.a[0]" }))).toBe("PARTITION_KEY_INVALID");
  });
});

describe("formatAdvice", () => {
  it("is empty for sound formats", () => {
    for (const kind of ["daily", "hourly", "weekly", "monthly"] as const)
      expect(formatAdvice(createPartitionSpec(kind))).toEqual([]);
    expect(formatAdvice(createPartitionSpec("weekly", { format: "%Y-%m-%d" }))).toEqual([]);
    expect(formatAdvice(createPartitionSpec("hourly", { format: "%Y%j-%I%p" }))).toEqual([]);
    expect(formatAdvice(createPartitionSpec("dynamic", { key: "$.t" }))).toEqual([]);
  });

  it("flags formats that cannot tell buckets apart", () => {
    expect(formatAdvice(createPartitionSpec("daily", { format: "%Y-%m" }))[0]).toContain(
      "cannot tell two daily partitions apart",
    );
    expect(formatAdvice(createPartitionSpec("hourly", { format: "%Y-%m-%d" }))[0]).toContain("hourly");
    expect(formatAdvice(createPartitionSpec("monthly", { format: "%m" }))[0]).toContain("monthly");
    expect(formatAdvice(createPartitionSpec("hourly", { format: "%Y-%m-%dT%I" }))[0]).toContain("hourly");
  });

  it("flags %Y with %V", () => {
    const advice = formatAdvice(createPartitionSpec("weekly", { format: "%Y-W%V" }));
    expect(advice).toHaveLength(1);
    expect(advice[0]).toContain("%G");
  });
});

describe("kinds and scheme keys", () => {
  it("classifies kinds", () => {
    expect(isTimeKind("weekly")).toBe(true);
    expect(isTimeKind("dynamic")).toBe(false);
    expect(isPartitionKind("dynamic")).toBe(true);
    expect(isPartitionKind("yearly")).toBe(false);
  });

  it("compares time schemes by kind, tz and format; all dynamic schemes alike", () => {
    const key = partitionSchemeKey;
    expect(key(createPartitionSpec("daily"))).toBe(key(createPartitionSpec("daily", { start: "2026-01-01" })));
    expect(key(createPartitionSpec("daily"))).not.toBe(key(createPartitionSpec("hourly")));
    expect(key(createPartitionSpec("daily"))).not.toBe(key(createPartitionSpec("daily", { tz: "Europe/Paris" })));
    expect(key(createPartitionSpec("daily"))).not.toBe(key(createPartitionSpec("daily", { format: "%Y/%m/%d" })));
    expect(key(createPartitionSpec("dynamic", { key: "$.a" }))).toBe(
      key(createPartitionSpec("dynamic", { key: "$.b" })),
    );
  });
});
