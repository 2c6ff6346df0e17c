import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { PartitionResolutionError } from "./errors.js";
import { partitionForInstant, resolvePartition } from "./partition-resolve.js";
import { createPartitionSpec, type TimePartitionSpec } from "./partition-spec.js";
import { bucketStart, isBeforeStart, renderBucket } from "./partition-time.js";

const time = (kind: TimePartitionSpec["kind"], options = {}): TimePartitionSpec =>
  createPartitionSpec(kind, options) as TimePartitionSpec;
const ms = (iso: string): number => Date.parse(iso);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PartitionResolutionError);
    return (e as PartitionResolutionError).code;
  }
  return undefined;
}

describe("partitionForInstant: kinds with default formats", () => {
  const instant = ms("2026-05-16T09:41:00Z");
  it.each([
    ["daily", "2026-05-16"],
    ["hourly", "2026-05-16T09"],
    ["weekly", "2026-W20"],
    ["monthly", "2026-05"],
  ] as const)("%s → %s", (kind, value) => {
    expect(partitionForInstant(time(kind), instant)).toBe(value);
  });

  it("accepts Date, epoch ms and DateTime", () => {
    const spec = time("daily");
    expect(partitionForInstant(spec, new Date("2026-05-16T09:00:00Z"))).toBe("2026-05-16");
    expect(partitionForInstant(spec, DateTime.fromISO("2026-05-16T09:00:00Z"))).toBe("2026-05-16");
  });
});

describe("tz= matters at boundaries", () => {
  it("00:30 UTC is still the previous local day in New York", () => {
    const spec = time("daily", { tz: "America/New_York" });
    expect(partitionForInstant(spec, ms("2026-05-16T00:30:00Z"))).toBe("2026-05-15");
    expect(partitionForInstant(time("daily"), ms("2026-05-16T00:30:00Z"))).toBe("2026-05-16");
  });

  it("renders the seed's tz + format example", () => {
    const spec = time("daily", { tz: "America/New_York", format: "%Y/%m/%d" });
    expect(partitionForInstant(spec, ms("2026-05-16T15:00:00Z"))).toBe("2026/05/16");
  });

  it("weekly buckets start on Monday in the zone; ISO week-year at new year", () => {
    expect(partitionForInstant(time("weekly"), ms("2025-12-31T12:00:00Z"))).toBe("2026-W01");
    expect(partitionForInstant(time("weekly", { tz: "Asia/Tokyo" }), ms("2026-05-17T20:00:00Z"))).toBe("2026-W21");
    expect(bucketStart(time("weekly"), ms("2026-05-16T09:00:00Z")).toISODate()).toBe("2026-05-11");
  });

  it("hourly in a half-hour zone", () => {
    expect(partitionForInstant(time("hourly", { tz: "Asia/Kolkata" }), ms("2026-05-16T09:41:00Z"))).toBe(
      "2026-05-16T15",
    );
  });

  it("renders the bucket start, so finer fields in a format are stable", () => {
    expect(renderBucket(time("daily", { format: "%Y-%m-%dT%H" }), ms("2026-05-16T09:41:00Z"))).toBe("2026-05-16T00");
  });

  it("rejects an invalid instant", () => {
    expect(codeOf(() => partitionForInstant(time("daily"), Number.NaN))).toBe("PARTITION_NO_FIRE_TIME");
    expect(codeOf(() => partitionForInstant(time("daily"), new Date("nope")))).toBe("PARTITION_NO_FIRE_TIME");
  });
});

describe("start= anchor", () => {
  it("a bucket strictly before the anchor resolves to no partition", () => {
    const spec = time("hourly", { start: "2026-01-01" });
    expect(partitionForInstant(spec, ms("2025-12-31T23:59:00Z"))).toBeUndefined();
    expect(partitionForInstant(spec, ms("2026-01-01T00:00:00Z"))).toBe("2026-01-01T00");
  });

  it("the anchor is local midnight in tz", () => {
    const spec = time("daily", { tz: "America/New_York", start: "2026-01-01" });
    expect(isBeforeStart(spec, ms("2026-01-01T03:00:00Z"))).toBe(true);
    expect(isBeforeStart(spec, ms("2026-01-01T06:00:00Z"))).toBe(false);
  });

  it("a week or month containing the anchor is not before it", () => {
    expect(partitionForInstant(time("weekly", { start: "2026-01-01" }), ms("2025-12-29T00:00:00Z"))).toBe("2026-W01");
    expect(partitionForInstant(time("weekly", { start: "2026-01-01" }), ms("2025-12-28T00:00:00Z"))).toBeUndefined();
    expect(partitionForInstant(time("monthly", { start: "2026-01-15" }), ms("2026-01-01T00:00:00Z"))).toBe("2026-01");
  });
});

describe("resolvePartition precedence", () => {
  const daily = time("daily");
  const dynamic = createPartitionSpec("dynamic", { key: "$.tenant_id" });

  it("1. an explicit partition is used as-is, never re-resolved", () => {
    expect(resolvePartition(daily, { explicit: "2026-01-10", fireTime: ms("2026-05-16T00:00:00Z") })).toEqual({
      status: "resolved",
      value: "2026-01-10",
      source: "explicit",
    });
    expect(resolvePartition(dynamic, { explicit: "acme", trigger: { tenant_id: "other" } })).toMatchObject({
      value: "acme",
    });
    expect(resolvePartition(undefined, { explicit: "x" })).toMatchObject({ value: "x", source: "explicit" });
    expect(resolvePartition(time("daily", { start: "2027-01-01" }), { explicit: "2026-01-10" })).toMatchObject({
      value: "2026-01-10",
    });
  });

  it("an explicit partition that could escape its path is refused", () => {
    expect(codeOf(() => resolvePartition(daily, { explicit: "../x" }))).toBe("PARTITION_VALUE_INVALID");
  });

  it("2. time kinds use the fire time", () => {
    expect(resolvePartition(daily, { fireTime: ms("2026-05-16T23:59:00Z") })).toEqual({
      status: "resolved",
      value: "2026-05-16",
      source: "fire-time",
    });
  });

  it("a time kind without fire time or explicit value fails clearly", () => {
    expect(codeOf(() => resolvePartition(daily, {}))).toBe("PARTITION_NO_FIRE_TIME");
  });

  it("before start: no partition, not failed, with a warning to log", () => {
    const r = resolvePartition(time("daily", { start: "2026-06-01" }), { fireTime: ms("2026-05-16T00:00:00Z") });
    expect(r.status).toBe("before-start");
    if (r.status === "before-start") expect(r.warning).toContain("start=2026-06-01");
  });

  it("3. dynamic reads the trigger object first, then the run arguments", () => {
    expect(resolvePartition(dynamic, { trigger: { tenant_id: "acme" }, args: { tenant_id: "args" } })).toEqual({
      status: "resolved",
      value: "acme",
      source: "payload",
    });
    expect(resolvePartition(dynamic, { args: { tenant_id: 7 } })).toMatchObject({ value: "7" });
  });

  it("dynamic failures: no payload, missing key, non-scalar leaf, unsafe value", () => {
    expect(codeOf(() => resolvePartition(dynamic, {}))).toBe("PARTITION_NO_PAYLOAD");
    expect(codeOf(() => resolvePartition(dynamic, { trigger: null }))).toBe("PARTITION_NO_PAYLOAD");
    expect(codeOf(() => resolvePartition(dynamic, { trigger: { other: 1 } }))).toBe("PARTITION_KEY_MISSING");
    expect(codeOf(() => resolvePartition(dynamic, { trigger: { tenant_id: { a: 1 } } }))).toBe(
      "PARTITION_KEY_NOT_SCALAR",
    );
    expect(codeOf(() => resolvePartition(dynamic, { trigger: { tenant_id: "" } }))).toBe("PARTITION_VALUE_INVALID");
  });

  it("an unpartitioned script without explicit value has no partition", () => {
    expect(resolvePartition(undefined, { fireTime: 0 })).toEqual({ status: "none" });
  });
});
