import { describe, expect, it } from "vitest";
import { splitKeys, typedRange, type RangeStep } from "./backfill-range.js";
import { createPartitionSpec, type PartitionKind } from "./partition-spec.js";

const spec = (kind: PartitionKind, opts: Record<string, string> = {}) => createPartitionSpec(kind, opts);

const MIXED: RangeStep[] = [
  { path: "f/m/hourly.ts", scheme: spec("hourly") },
  { path: "f/m/ny.ts", scheme: spec("daily", { tz: "America/New_York", format: "%Y/%m/%d" }) },
  { path: "f/m/daily.ts", scheme: spec("daily") },
  { path: "f/m/weekly.ts", scheme: spec("weekly") },
  { path: "f/m/tenant.ts", scheme: spec("dynamic", { key: "$.tenant" }) },
  { path: "f/m/plain.ts" },
];

describe("typed backfill ranges", () => {
  it("types an hourly range by the first partitioned step and leaves the other schemes out with reasons", () => {
    const r = typedRange(MIXED, { fromPartition: "2026-05-01T00", toPartition: "2026-05-01T01" });
    expect(r.partitions).toEqual(["2026-05-01T00", "2026-05-01T01"]);
    expect(r.steps).toEqual(["f/m/hourly.ts"]);
    expect(r.excluded).toEqual([
      {
        step: "f/m/ny.ts",
        reason: "partitioned daily (tz=America/New_York, format=%Y/%m/%d), not hourly (tz=UTC, format=%Y-%m-%dT%H)",
      },
      {
        step: "f/m/daily.ts",
        reason: "partitioned daily (tz=UTC, format=%Y-%m-%d), not hourly (tz=UTC, format=%Y-%m-%dT%H)",
      },
      {
        step: "f/m/weekly.ts",
        reason: "partitioned weekly (tz=UTC, format=%G-W%V), not hourly (tz=UTC, format=%Y-%m-%dT%H)",
      },
      { step: "f/m/tenant.ts", reason: "partitioned dynamic (key=$.tenant): backfill it with --keys" },
      { step: "f/m/plain.ts", reason: "not partitioned" },
    ]);
  });

  it("--scheme picks the time kind; a daily range in another zone and format is a different scheme", () => {
    const r = typedRange(MIXED, { fromPartition: "2026-05-25", toPartition: "2026-05-31", kind: "weekly" });
    expect(r.steps).toEqual(["f/m/weekly.ts"]);
    expect(r.partitions).toEqual(["2026-W22"]);
    const ny = typedRange(MIXED.slice(1), { fromPartition: "2026/05/01", toPartition: "2026/05/02" });
    expect(ny.steps).toEqual(["f/m/ny.ts"]);
    expect(ny.partitions).toEqual(["2026/05/01", "2026/05/02"]);
  });

  it("dynamic partitions take an explicit key list, deduplicated and validated", () => {
    const r = typedRange(MIXED, { keys: splitKeys("acme, globex,acme") });
    expect(r.partitions).toEqual(["acme", "globex"]);
    expect(r.steps).toEqual(["f/m/tenant.ts"]);
    expect(r.excluded.map((e) => e.step)).toEqual([
      "f/m/hourly.ts",
      "f/m/ny.ts",
      "f/m/daily.ts",
      "f/m/weekly.ts",
      "f/m/plain.ts",
    ]);
    expect(() => typedRange(MIXED, { keys: ["../etc"] })).toThrow(/cannot be used/);
    expect(() => splitKeys("a,,b")).toThrow(/empty key/);
  });

  it("refuses what cannot be typed, saying what to pass", () => {
    expect(() => typedRange(MIXED, { keys: ["a"], fromPartition: "2026-05-01", toPartition: "2026-05-02" })).toThrow(
      /either --keys .* or --from-partition\/--to-partition/,
    );
    expect(() => typedRange(MIXED, { fromPartition: "2026-05-01" })).toThrow(
      /needs --from-partition and --to-partition/,
    );
    expect(() => typedRange([MIXED[4]!], { fromPartition: "2026-05-01", toPartition: "2026-05-02" })).toThrow(
      /dynamic partitions, which have no range: list the keys with --keys/,
    );
    expect(() => typedRange([MIXED[5]!], { fromPartition: "2026-05-01", toPartition: "2026-05-02" })).toThrow(
      /none of the planned steps is partitioned/,
    );
    expect(() =>
      typedRange(MIXED, { fromPartition: "2026-05-01", toPartition: "2026-05-02", kind: "monthly" }),
    ).toThrow(/no planned step is partitioned monthly; the steps' schemes: hourly, daily, weekly/);
    expect(() => typedRange(MIXED.slice(0, 3), { keys: ["a"] })).toThrow(
      /no planned step is `\/\/ partitioned dynamic`/,
    );
  });
});

describe("partition mappings (--map-partitions)", () => {
  const CHAIN: RangeStep[] = [
    { path: "f/c/daily.ts", scheme: spec("daily") },
    { path: "f/c/weekly.ts", scheme: spec("weekly"), upstream: ["f/c/daily.ts"] },
    { path: "f/c/monthly.ts", scheme: spec("monthly"), upstream: ["f/c/daily.ts", "f/c/weekly.ts"] },
    { path: "f/c/hourly.ts", scheme: spec("hourly"), upstream: ["f/c/daily.ts"] },
    { path: "f/c/other.ts", scheme: spec("monthly") },
    { path: "f/c/plain.ts", upstream: ["f/c/daily.ts"] },
  ];

  it("a daily range selects the weekly and monthly windows it overlaps, finest first", () => {
    const r = typedRange(CHAIN, { fromPartition: "2026-04-30", toPartition: "2026-05-10", mapCoarser: true });
    expect(r.steps).toEqual(["f/c/daily.ts"]);
    expect(r.mapped.map((m) => [m.scheme.kind, m.steps, m.partitions])).toEqual([
      ["weekly", ["f/c/weekly.ts"], ["2026-W18", "2026-W19"]],
      ["monthly", ["f/c/monthly.ts"], ["2026-04", "2026-05"]],
    ]);
    // A finer scheme is not mapped (one day is not one hour), nor an unpartitioned step, nor a
    // coarser step that does not depend on the range's steps.
    expect(r.excluded.map((e) => e.step)).toEqual(["f/c/hourly.ts", "f/c/other.ts", "f/c/plain.ts"]);
  });

  it("without the option nothing is mapped; a coarser step upstream of the range is left out", () => {
    expect(typedRange(CHAIN, { fromPartition: "2026-05-01", toPartition: "2026-05-02" }).mapped).toEqual([]);
    const before = typedRange(
      [
        { path: "f/c/weekly.ts", scheme: spec("weekly") },
        { path: "f/c/daily.ts", scheme: spec("daily"), upstream: ["f/c/weekly.ts"] },
      ],
      { fromPartition: "2026-05-01", toPartition: "2026-05-02", kind: "daily", mapCoarser: true },
    );
    expect(before.mapped).toEqual([]);
    expect(before.excluded.map((e) => e.step)).toEqual(["f/c/weekly.ts"]);
  });

  it("maps by time windows across zones: a New York day late in the month reaches into the next UTC month", () => {
    const ny = spec("daily", { tz: "America/New_York", format: "%Y/%m/%d" });
    const r = typedRange(
      [
        { path: "f/c/ny.ts", scheme: ny },
        { path: "f/c/monthly.ts", scheme: spec("monthly"), upstream: ["f/c/ny.ts"] },
      ],
      { fromPartition: "2026/05/31", toPartition: "2026/05/31", mapCoarser: true },
    );
    expect(r.mapped[0]!.partitions).toEqual(["2026-05", "2026-06"]);
  });
});
