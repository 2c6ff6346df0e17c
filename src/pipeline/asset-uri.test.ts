import { describe, expect, it } from "vitest";
import { AssetUriError } from "./errors.js";
import { assetUriOf, hasAssetScheme, normalizeAssetUri, parseAssetUri, tryParseAssetUri } from "./asset-uri.js";

describe("parseAssetUri: the five kinds", () => {
  it.each([
    ["s3://bucket/path/to/file.parquet", "s3", "bucket/path/to/file.parquet"],
    ["$res:f/team/postgres", "resource", "f/team/postgres"],
    ["datatable://main", "datatable", "main"],
    ["datatable://main/staged", "datatable", "main/staged"],
    ["ducklake://lake", "ducklake", "lake"],
    ["ducklake://main/orders_daily", "ducklake", "main/orders_daily"],
    ["volume://name", "volume", "name"],
  ])("%s", (text, kind, path) => {
    const uri = parseAssetUri(text);
    expect(uri).toEqual({ kind, uri: text, path, partitioned: false });
  });
});

describe("normalisation", () => {
  it.each([
    ["  s3://a/b  ", "s3://a/b"],
    ["S3://a/b", "s3://a/b"],
    ["s3:///default/key", "s3://default/key"],
    ["res://f/team/pg", "$res:f/team/pg"],
    ["$RES:f/team/pg", "$res:f/team/pg"],
    ["datatable://main/", "datatable://main"],
    ["DuckLake://main/orders/", "ducklake://main/orders"],
    ["volume://v//", "volume://v"],
    ["s3://bucket/prefix/", "s3://bucket/prefix/"],
  ])("%j → %s", (text, canonical) => {
    expect(normalizeAssetUri(text)).toBe(canonical);
  });

  it("keeps the {partition} token literal and flags the asset partition-bearing", () => {
    const uri = parseAssetUri("s3://lake/raw/{partition}/events.parquet");
    expect(uri.partitioned).toBe(true);
    expect(uri.uri).toBe("s3://lake/raw/{partition}/events.parquet");
    expect(parseAssetUri("datatable://main/events_{partition}").partitioned).toBe(true);
  });

  it("builds a URI from kind and path", () => {
    expect(assetUriOf("resource", "f/x/y").uri).toBe("$res:f/x/y");
    expect(assetUriOf("volume", "data").uri).toBe("volume://data");
  });
});

describe("invalid URIs", () => {
  it.each([
    ["http://example.com/x", "unknown scheme"],
    ["f/team/postgres", "unknown scheme"],
    ["s3://", "empty"],
    ["$res:", "empty"],
    ["s3://a b/c", "whitespace"],
    ["s3://a/'b'", "quotes"],
    ["s3://a/../b", "`..`"],
    ["datatable://main/./t", "`..`"],
    ["s3://lake/{date}/x", "only the literal {partition}"],
    ["s3://lake/${partition}/x", "not ${partition}"],
    ["datatable://main//t", "empty path segment"],
    ["ducklake://main/ord ers", "whitespace"],
    ["ducklake://main/or:ders", "may only use"],
  ])("%j is rejected (%s)", (text, reason) => {
    let error: unknown;
    try {
      parseAssetUri(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AssetUriError);
    expect((error as AssetUriError).code).toBe("ASSET_URI_INVALID");
    expect((error as AssetUriError).message).toContain(reason);
    expect(tryParseAssetUri(text)).toBeUndefined();
  });

  it("hasAssetScheme only looks at the prefix", () => {
    expect(hasAssetScheme("s3://")).toBe(true);
    expect(hasAssetScheme("  volume://x")).toBe(true);
    expect(hasAssetScheme("res://x")).toBe(true);
    expect(hasAssetScheme("schedule")).toBe(false);
    expect(hasAssetScheme("gs://x")).toBe(false);
  });
});
