/**
 * Partition templates in asset URIs: substitute a concrete partition into a declared
 * URI, and match a concrete written URI against a declared (possibly templated) one,
 * extracting the partition value.
 */
import { PARTITION_TOKEN, parseAssetUri, type AssetUri } from "./asset-uri.js";
import { assertPartitionValue, partitionValueProblem } from "./partition-value.js";

/** The result of a successful {@link matchAssetUri}. */
export interface AssetMatch {
  /** The declared (template) URI, canonical. */
  readonly declared: string;
  /** The concrete URI, canonical. */
  readonly written: string;
  /** The partition value extracted from the written URI (absent when the declared URI has no token). */
  readonly partition?: string;
}

function asUri(uri: string | AssetUri): AssetUri {
  return typeof uri === "string" ? parseAssetUri(uri) : uri;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Replace every `{partition}` token in `uri` with `value`.
 *
 * @throws PartitionResolutionError (`PARTITION_VALUE_INVALID`) when the value could escape its path.
 * @throws AssetUriError when `uri` is not a valid asset URI.
 * @example substitutePartition("s3://lake/{partition}/x.parquet", "2026-05-16").uri
 *   // "s3://lake/2026-05-16/x.parquet"
 */
export function substitutePartition(uri: string | AssetUri, value: string): AssetUri {
  const template = asUri(uri);
  if (!template.partitioned) return template;
  assertPartitionValue(value);
  return parseAssetUri(template.uri.split(PARTITION_TOKEN).join(value));
}

/**
 * Match a concrete, written URI against a declared URI.
 *
 * - Without a token, the two must be equal after normalisation.
 * - With tokens, every token must capture the same non-empty value (which may contain `/`,
 *   e.g. with `format="%Y/%m/%d"`); the value must pass partition-value validation and,
 *   when given, `accept(value)` (e.g. "parses in this scheme's format").
 * - A written URI that still contains `{partition}` matches only the identical template.
 *
 * Invalid URIs never match (no throw).
 *
 * @returns the match with the extracted partition, or `undefined`.
 */
export function matchAssetUri(
  declared: string | AssetUri,
  written: string | AssetUri,
  accept?: (partition: string) => boolean,
): AssetMatch | undefined {
  let d: AssetUri;
  let w: AssetUri;
  try {
    d = asUri(declared);
    w = asUri(written);
  } catch {
    return undefined;
  }
  if (d.kind !== w.kind) return undefined;
  if (!d.partitioned || w.partitioned) {
    return d.uri === w.uri ? { declared: d.uri, written: w.uri } : undefined;
  }
  const parts = d.uri.split(PARTITION_TOKEN).map(escapeRegExp);
  const pattern = parts[0] + "(.+?)" + parts.slice(1).join("\\1");
  const match = new RegExp(`^${pattern}$`).exec(w.uri);
  const partition = match?.[1];
  if (partition === undefined) return undefined;
  if (partitionValueProblem(partition) !== undefined) return undefined;
  if (accept && !accept(partition)) return undefined;
  return { declared: d.uri, written: w.uri, partition };
}

/**
 * True when the declared asset `container` contains the written asset `inner`, so a write to
 * `inner` is also a write to `container`: `datatable://main` contains `datatable://main/staged`,
 * `ducklake://lake` contains `ducklake://lake/orders`, `volume://v` contains `volume://v/a/b`, and
 * an S3 prefix ending in `/` contains every key below it. Templates never contain anything.
 */
export function assetContains(container: string | AssetUri, inner: string | AssetUri): boolean {
  let c: AssetUri;
  let i: AssetUri;
  try {
    c = asUri(container);
    i = asUri(inner);
  } catch {
    return false;
  }
  if (c.kind !== i.kind || c.partitioned || c.uri === i.uri) return false;
  if (c.kind === "s3") return c.path.endsWith("/") && i.path.startsWith(c.path);
  if (c.kind === "resource") return false;
  return i.path.startsWith(`${c.path}/`);
}
