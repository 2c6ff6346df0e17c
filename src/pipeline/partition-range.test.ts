import { describe, expect, it } from "vitest";
import { PartitionRangeError, PartitionResolutionError } from "./errors.js";
import { enumeratePartitions, parsePartitionValue } from "./partition-range.js";
import { createPartitionSpec, type TimePartitionSpec } from "./partition-spec.js";

const time = (kind: TimePartitionSpec["kind"], options = {}): TimePartitionSpec =>
  createPartitionSpec(kind, options) as TimePartitionSpec;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe("enumeratePartitions", () => {
  it("daily across a month end, inclusive", () => {
    expect(enumeratePartitions(time("daily"), "2026-05-30", "2026-06-02")).toEqual([
      "2026-05-30",
      "2026-05-31",
      "2026-06-01",
      "2026-06-02",
    ]);
  });

  it("a single partition", () => {
    expect(enumeratePartitions(time("monthly"), "2026-05", "2026-05")).toEqual(["2026-05"]);
  });

  it("hourly with a custom format", () => {
    expect(enumeratePartitions(time("hourly", { format: "%Y%m%d/%H" }), "20260516/22", "20260517/01")).toEqual([
      "20260516/22",
      "20260516/23",
      "20260517/00",
      "20260517/01",
    ]);
  });

  it("weekly across the ISO year boundary", () => {
    expect(enumeratePartitions(time("weekly"), "2025-W52", "2026-W02")).toEqual(["2025-W52", "2026-W01", "2026-W02"]);
  });

  it("monthly across a year", () => {
    expect(enumeratePartitions(time("monthly"), "2025-11", "2026-02")).toEqual([
      "2025-11",
      "2025-12",
      "2026-01",
      "2026-02",
    ]);
  });

  it("accepts ISO dates and instants as ends", () => {
    expect(enumeratePartitions(time("monthly"), "2026-01-15", "2026-03-01")).toEqual(["2026-01", "2026-02", "2026-03"]);
    expect(
      enumeratePartitions(time("daily"), new Date("2026-05-16T10:00:00Z"), Date.parse("2026-05-17T10:00:00Z")),
    ).toEqual(["2026-05-16", "2026-05-17"]);
  });

  it("daylight saving: the repeated hour is listed once, the skipped hour not at all", () => {
    const ny = time("hourly", { tz: "America/New_York" });
    expect(enumeratePartitions(ny, "2026-11-01T00", "2026-11-01T03")).toEqual([
      "2026-11-01T00",
      "2026-11-01T01",
      "2026-11-01T02",
      "2026-11-01T03",
    ]);
    expect(enumeratePartitions(ny, "2026-03-08T01", "2026-03-08T04")).toEqual([
      "2026-03-08T01",
      "2026-03-08T03",
      "2026-03-08T04",
    ]);
  });

  it("daily days stay on local midnight across DST", () => {
    expect(enumeratePartitions(time("daily", { tz: "Europe/Paris" }), "2026-03-28", "2026-03-30")).toEqual([
      "2026-03-28",
      "2026-03-29",
      "2026-03-30",
    ]);
  });

  it("clips to start= by default, or not when asked", () => {
    const spec = time("daily", { start: "2026-01-02" });
    expect(enumeratePartitions(spec, "2025-12-31", "2026-01-03")).toEqual(["2026-01-02", "2026-01-03"]);
    expect(enumeratePartitions(spec, "2025-12-31", "2026-01-03", { clipToStart: false })).toHaveLength(4);
  });

  it("errors: dynamic, reversed, too large, unparseable", () => {
    expect(codeOf(() => enumeratePartitions(createPartitionSpec("dynamic", { key: "$.t" }), "a", "b"))).toBe(
      "PARTITION_NOT_ENUMERABLE",
    );
    expect(codeOf(() => enumeratePartitions(time("daily"), "2026-05-02", "2026-05-01"))).toBe(
      "PARTITION_RANGE_REVERSED",
    );
    expect(codeOf(() => enumeratePartitions(time("hourly"), "2026-01-01T00", "2026-12-31T00", { limit: 100 }))).toBe(
      "PARTITION_RANGE_TOO_LARGE",
    );
    expect(codeOf(() => enumeratePartitions(time("daily"), "yesterday", "2026-05-01"))).toBe("PARTITION_VALUE_INVALID");
    expect(() => enumeratePartitions(time("daily"), "2026-05-02", "2026-05-01")).toThrow(PartitionRangeError);
  });
});

describe("parsePartitionValue", () => {
  it("parses the scheme's own format in its zone", () => {
    const spec = time("daily", { tz: "America/New_York", format: "%Y/%m/%d" });
    expect(parsePartitionValue(spec, "2026/05/16").toISO()).toBe("2026-05-16T00:00:00.000-04:00");
  });

  it("falls back to ISO 8601", () => {
    expect(parsePartitionValue(time("weekly"), "2026-05-16").toISODate()).toBe("2026-05-11");
  });

  it("rejects garbage with PARTITION_VALUE_INVALID", () => {
    expect(() => parsePartitionValue(time("daily"), "May 16")).toThrow(PartitionResolutionError);
  });
});

describe("partition values of another scheme", () => {
  const message = (spec: TimePartitionSpec, value: string): string => {
    try {
      parsePartitionValue(spec, value);
    } catch (e) {
      expect((e as PartitionResolutionError).code).toBe("PARTITION_VALUE_INVALID");
      return (e as Error).message;
    }
    throw new Error(`${value} was accepted`);
  };

  it("refuses ISO weeks, months and years on a daily scheme, naming the format", () => {
    expect(message(time("daily"), "2026-W01")).toBe(
      '"2026-W01" is not a daily partition: write it as YYYY-MM-DD (format "%Y-%m-%d"), e.g. "2026-05-16"',
    );
    for (const v of ["2026-W03", "2026-W03-1", "2026-01", "2026", "2026-005"])
      expect(message(time("daily"), v)).toMatch(/YYYY-MM-DD/);
    expect(() => enumeratePartitions(time("daily"), "2026-W01", "2026-W03")).toThrow(PartitionResolutionError);
  });

  it("refuses a month on a weekly scheme and a bare date on an hourly one", () => {
    expect(message(time("weekly"), "2026-01")).toBe(
      '"2026-01" is not a weekly partition: write it as YYYY-Www (format "%G-W%V"), e.g. "2026-W20", or as an ISO date like "2026-05-16" (the weekly partition containing it)',
    );
    expect(message(time("hourly"), "2026-05-16")).toMatch(
      /^"2026-05-16" is not an hourly partition: write it as YYYY-MM-DDTHH \(format "%Y-%m-%dT%H"\), e.g. "2026-05-16T10", or as an ISO date-time like "2026-05-16T10:00"$/,
    );
    expect(message(time("daily", { format: "%Y/%m/%d" }), "2026-W01")).toMatch(/write it as YYYY\/MM\/DD/);
  });

  it("still takes the scheme's own values and ISO dates inside a bucket", () => {
    expect(enumeratePartitions(time("weekly"), "2026-W01", "2026-01-12")).toEqual(["2026-W01", "2026-W02", "2026-W03"]);
    expect(enumeratePartitions(time("hourly"), "2026-05-16T22:30:00Z", "2026-05-16T23")).toEqual([
      "2026-05-16T22",
      "2026-05-16T23",
    ]);
    expect(enumeratePartitions(time("daily"), "2026-05-16T10:00:00Z", "2026-05-17")).toEqual([
      "2026-05-16",
      "2026-05-17",
    ]);
  });
});
