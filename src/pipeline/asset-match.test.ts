import { describe, expect, it } from "vitest";
import { assetContains, matchAssetUri, substitutePartition } from "./asset-match.js";
import { PartitionResolutionError } from "./errors.js";
import { assertPartitionValue, partitionValueProblem } from "./partition-value.js";

describe("substitutePartition", () => {
  it("replaces every token", () => {
    expect(substitutePartition("s3://lake/{partition}/x_{partition}.parquet", "2026-05-16").uri).toBe(
      "s3://lake/2026-05-16/x_2026-05-16.parquet",
    );
  });

  it("allows values with / (format=%Y/%m/%d)", () => {
    expect(substitutePartition("s3://lake/{partition}/data.parquet", "2026/05/16").uri).toBe(
      "s3://lake/2026/05/16/data.parquet",
    );
  });

  it("returns URIs without a token unchanged", () => {
    expect(substitutePartition("s3://lake/dim/current.parquet", "2026-05-16").uri).toBe(
      "s3://lake/dim/current.parquet",
    );
  });

  it.each(["", "../etc", "a/../b", "/abs", "a//b", "a b", "x'y", "{partition}"])(
    "refuses the unsafe value %j",
    (value) => {
      expect(() => substitutePartition("s3://lake/{partition}/x", value)).toThrow(PartitionResolutionError);
      expect(partitionValueProblem(value)).toBeTypeOf("string");
    },
  );

  it("assertPartitionValue carries a stable code", () => {
    try {
      assertPartitionValue("..");
      expect.unreachable();
    } catch (e) {
      expect((e as PartitionResolutionError).code).toBe("PARTITION_VALUE_INVALID");
    }
    expect(assertPartitionValue("acme")).toBe("acme");
    expect(partitionValueProblem("x".repeat(256))).toContain("255");
  });
});

describe("matchAssetUri", () => {
  it("extracts the partition from a concrete written URI", () => {
    expect(
      matchAssetUri("s3://lake/raw/{partition}/events.parquet", "s3://lake/raw/2026-05-15/events.parquet"),
    ).toEqual({
      declared: "s3://lake/raw/{partition}/events.parquet",
      written: "s3://lake/raw/2026-05-15/events.parquet",
      partition: "2026-05-15",
    });
  });

  it("captures values containing /", () => {
    expect(matchAssetUri("s3://lake/{partition}/data.parquet", "s3://lake/2026/05/16/data.parquet")?.partition).toBe(
      "2026/05/16",
    );
  });

  it("requires every token to capture the same value", () => {
    expect(matchAssetUri("s3://l/{partition}/x_{partition}", "s3://l/a/x_a")?.partition).toBe("a");
    expect(matchAssetUri("s3://l/{partition}/x_{partition}", "s3://l/a/x_b")).toBeUndefined();
  });

  it("matches untemplated URIs by equality after normalisation", () => {
    expect(matchAssetUri("s3://demo/raw.json", "S3:///demo/raw.json")).toEqual({
      declared: "s3://demo/raw.json",
      written: "s3://demo/raw.json",
    });
    expect(matchAssetUri("s3://demo/raw.json", "s3://demo/other.json")).toBeUndefined();
  });

  it("does not match across kinds, empty partitions or invalid URIs", () => {
    expect(matchAssetUri("s3://x/{partition}", "volume://x/a")).toBeUndefined();
    expect(matchAssetUri("s3://x/{partition}/y", "s3://x//y")).toBeUndefined();
    expect(matchAssetUri("s3://x/{partition}", "not a uri")).toBeUndefined();
    expect(matchAssetUri("s3://x/{partition}/y", "s3://x/../y")).toBeUndefined();
  });

  it("a template matches only the identical template", () => {
    expect(matchAssetUri("s3://x/{partition}", "s3://x/{partition}")?.partition).toBeUndefined();
    expect(matchAssetUri("s3://x/{partition}", "s3://x/{partition}")).toBeDefined();
    expect(matchAssetUri("s3://x/{partition}/a", "s3://x/{partition}/b")).toBeUndefined();
  });

  it("applies the accept predicate (e.g. the scheme's format)", () => {
    const isDay = (v: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(v);
    expect(matchAssetUri("s3://x/{partition}/y", "s3://x/2026-05-16/y", isDay)?.partition).toBe("2026-05-16");
    expect(matchAssetUri("s3://x/{partition}/y", "s3://x/latest/y", isDay)).toBeUndefined();
  });

  it("escapes regex characters in the declared URI", () => {
    expect(matchAssetUri("s3://x/a+b.(c)/{partition}", "s3://x/a+b.(c)/p")?.partition).toBe("p");
    expect(matchAssetUri("s3://x/a+b.(c)/{partition}", "s3://x/aab.(c)/p")).toBeUndefined();
  });
});

describe("assetContains", () => {
  it("a database or lake contains its tables, a volume its paths", () => {
    expect(assetContains("datatable://main", "datatable://main/staged")).toBe(true);
    expect(assetContains("ducklake://lake", "ducklake://lake/orders")).toBe(true);
    expect(assetContains("volume://v", "volume://v/a/b")).toBe(true);
    expect(assetContains("datatable://main", "datatable://mainx/staged")).toBe(false);
    expect(assetContains("datatable://main", "ducklake://main/staged")).toBe(false);
  });

  it("an S3 prefix ending in / contains the keys below it; a key contains nothing", () => {
    expect(assetContains("s3://lake/raw/", "s3://lake/raw/2026/x.parquet")).toBe(true);
    expect(assetContains("s3://lake/raw", "s3://lake/raw/x.parquet")).toBe(false);
    expect(assetContains("s3://lake/raw/", "s3://lake/rawx")).toBe(false);
  });

  it("never for itself, resources, templates or invalid URIs", () => {
    expect(assetContains("datatable://main", "datatable://main")).toBe(false);
    expect(assetContains("$res:f/a", "$res:f/a/b")).toBe(false);
    expect(assetContains("s3://l/{partition}/", "s3://l/{partition}/x")).toBe(false);
    expect(assetContains("nope", "s3://x")).toBe(false);
  });

  it("Hive-style keys are ordinary S3 paths", () => {
    expect(
      matchAssetUri("s3://lake/events/date={partition}/x.parquet", "s3://lake/events/date=2026-05-16/x.parquet")
        ?.partition,
    ).toBe("2026-05-16");
  });
});
