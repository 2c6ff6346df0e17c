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
