/**
 * Asset URIs: parse, validate and normalise the five asset kinds a pipeline tracks
 * (`s3://`, `$res:`, `datatable://`, `ducklake://`, `volume://`). The literal
 * `{partition}` token may appear in any path and stays literal here; see
 * `asset-match.ts` for substitution and matching.
 */
import { AssetUriError } from "./errors.js";

/** The kinds of asset a pipeline tracks. */
export type AssetKind = "s3" | "resource" | "datatable" | "ducklake" | "volume";

/** A validated, normalised asset URI. */
export interface AssetUri {
  /** Which kind of asset. */
  readonly kind: AssetKind;
  /** The canonical URI text, e.g. `s3://lake/{partition}/data.parquet` or `$res:f/team/pg`. */
  readonly uri: string;
  /** The part after the scheme, e.g. `lake/{partition}/data.parquet`. */
  readonly path: string;
  /** True when the path contains the literal `{partition}` token (a partition-bearing asset). */
  readonly partitioned: boolean;
}

/** The literal partition token used in asset paths. */
export const PARTITION_TOKEN = "{partition}";

interface SchemeRule {
  readonly kind: AssetKind;
  readonly canonical: string;
  /** Accepted spellings, lower-case. */
  readonly spellings: readonly string[];
}

const SCHEMES: readonly SchemeRule[] = [
  { kind: "s3", canonical: "s3://", spellings: ["s3://"] },
  { kind: "resource", canonical: "$res:", spellings: ["$res:", "res://"] },
  { kind: "datatable", canonical: "datatable://", spellings: ["datatable://"] },
  { kind: "ducklake", canonical: "ducklake://", spellings: ["ducklake://"] },
  { kind: "volume", canonical: "volume://", spellings: ["volume://"] },
];

/** Characters allowed in one path segment of a named (non-S3) asset, `{partition}` aside. */
const NAMED_SEGMENT = /^[A-Za-z0-9_.@-]+$/;
/** Characters never allowed anywhere: whitespace, controls, quotes, backslash. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const FORBIDDEN = /[\s\u0000-\u001f\u007f'"`\\]/;

function splitScheme(text: string): { rule: SchemeRule; rest: string } | undefined {
  const lower = text.toLowerCase();
  for (const rule of SCHEMES) {
    for (const spelling of rule.spellings) {
      if (lower.startsWith(spelling)) return { rule, rest: text.slice(spelling.length) };
    }
  }
  return undefined;
}

/** True when the text starts with one of the supported scheme prefixes (it may still be malformed). */
export function hasAssetScheme(text: string): boolean {
  return splitScheme(text.trim()) !== undefined;
}

function checkTokens(input: string, path: string): void {
  if (path.includes("${")) {
    throw new AssetUriError(input, "write the partition token as {partition}, not ${partition}");
  }
  const stripped = path.split(PARTITION_TOKEN).join("");
  if (stripped.includes("{") || stripped.includes("}")) {
    throw new AssetUriError(input, "only the literal {partition} token may appear in braces");
  }
}

function checkSegments(input: string, kind: AssetKind, segments: readonly string[]): void {
  for (const segment of segments) {
    if (segment === "." || segment === "..") {
      throw new AssetUriError(input, "`.` and `..` path segments are not allowed");
    }
    if (kind === "s3") continue;
    if (segment === "") throw new AssetUriError(input, "empty path segment (`//`)");
    const plain = segment.split(PARTITION_TOKEN).join("p");
    if (!NAMED_SEGMENT.test(plain)) {
      throw new AssetUriError(input, `segment ${JSON.stringify(segment)} may only use letters, digits and _ . @ -`);
    }
  }
}

/**
 * Parse and normalise an asset URI.
 *
 * Normalisation: surrounding whitespace is trimmed; the scheme is lower-cased; `res://x`
 * becomes `$res:x`; leading slashes of the path are dropped (`s3:///key` → `s3://key`);
 * trailing slashes are dropped for every kind except S3 (where a trailing `/` names a prefix).
 *
 * @throws AssetUriError (`ASSET_URI_INVALID`) for an unknown scheme, an empty path,
 * whitespace/quotes, `.`/`..` segments or braces other than `{partition}`.
 * @example parseAssetUri("S3:///lake/{partition}/x.parquet").uri // "s3://lake/{partition}/x.parquet"
 */
export function parseAssetUri(text: string): AssetUri {
  const input = text.trim();
  const split = splitScheme(input);
  if (!split) throw new AssetUriError(input, "unknown scheme");
  const { rule } = split;
  if (FORBIDDEN.test(split.rest)) {
    throw new AssetUriError(input, "whitespace, quotes and backslashes are not allowed");
  }
  let path = split.rest.replace(/^\/+/, "");
  if (rule.kind !== "s3") path = path.replace(/\/+$/, "");
  if (path === "") throw new AssetUriError(input, "the path after the scheme is empty");
  checkTokens(input, path);
  checkSegments(input, rule.kind, path.split("/"));
  return { kind: rule.kind, uri: rule.canonical + path, path, partitioned: path.includes(PARTITION_TOKEN) };
}

/** Like {@link parseAssetUri} but returns `undefined` instead of throwing. */
export function tryParseAssetUri(text: string): AssetUri | undefined {
  try {
    return parseAssetUri(text);
  } catch {
    return undefined;
  }
}

/** The canonical text of an asset URI. @throws AssetUriError when it is invalid. */
export function normalizeAssetUri(text: string): string {
  return parseAssetUri(text).uri;
}

/** Build the canonical URI of an asset from its kind and path (validated). */
export function assetUriOf(kind: AssetKind, path: string): AssetUri {
  const rule = SCHEMES.find((s) => s.kind === kind);
  if (!rule) throw new AssetUriError(path, `unknown kind ${String(kind)}`);
  return parseAssetUri(rule.canonical + path);
}
