/**
 * Lake data files on an object store (`s3://bucket/prefix/…` data paths). DuckDB's `httpfs`
 * extension cannot be installed here, so DuckDB never opens an `s3://` URL itself: the
 * writer has DuckDB write a commit's Parquet files into a local staging folder and uploads
 * them (before the catalog commit, so a crash leaves only unreferenced objects for the
 * orphan sweep); readers download the files a scan needs into a local cache folder first and
 * give DuckDB those copies. Lake files are never changed once written (their names are new
 * UUIDs), so a cached copy never goes stale; the cache is kept within a size limit, least
 * recently used copies first (`file-cache.ts`). Bytes move through `@aws-sdk/client-s3`
 * (loaded on first use), against AWS or an S3-compatible server (`endpoint`, path style).
 */
import { mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import { LakeError } from "./errors.js";
import { DEFAULT_CACHE_MAX_BYTES, DEFAULT_CACHE_MIN_AGE_MS, pruneCache } from "./file-cache.js";

/** Files of a lake kept under URLs (`s3://bucket/key`). */
export interface RemoteFiles {
  /** A local file holding the bytes at `url` (downloaded into the cache the first time). */
  fetch(url: string): Promise<string>;
  /** Upload the local file `path` to `url`. */
  upload(path: string, url: string): Promise<void>;
  /** Remove the object at `url` (no error when absent). */
  remove(url: string): Promise<void>;
  /** The objects under `urlPrefix` (full URLs) with their last modification time. */
  list(urlPrefix: string): Promise<Array<{ url: string; modifiedMs: number }>>;
}

/** How to reach the object store. Credentials come from the AWS SDK's default chain (environment, profile). */
export interface S3FilesOptions {
  readonly region: string;
  /** An S3-compatible server, e.g. `http://127.0.0.1:4569`. */
  readonly endpoint?: string;
  readonly forcePathStyle?: boolean;
  /** Folder of the downloaded copies. */
  readonly cacheDir: string;
  /** Size limit of the cache folder (default {@link DEFAULT_CACHE_MAX_BYTES}); least recently used copies go first. */
  readonly cacheMaxBytes?: number;
  /** Copies used within this window are never removed (default {@link DEFAULT_CACHE_MIN_AGE_MS}). */
  readonly cacheMinAgeMs?: number;
  /** The clock of the cache's recency (tests). */
  readonly now?: () => number;
}

/** `s3://bucket/key` → bucket and key. Pure. @throws LakeError for another URL */
function parseS3Url(url: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(url);
  if (!m)
    throw new LakeError(
      "LAKE_FEATURE_UNSUPPORTED",
      `lake data path ${url} is not an s3://bucket/prefix/ URL; object storage other than S3 is not supported`,
    );
  return { bucket: m[1]!, key: m[2]! };
}

function failed(op: string, url: string, err: unknown): LakeError {
  return new LakeError(
    "LAKE_STORAGE_FAILED",
    `S3 ${op} of ${url} failed: ${(err as Error)?.message ?? String(err)}; check the bucket, endpoint and credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)`,
    { cause: err },
  );
}

/** Lake files on S3 (or an S3-compatible server) through `@aws-sdk/client-s3`. */
export function s3Files(options: S3FilesOptions): RemoteFiles {
  let client: Promise<{ s3: S3Client; sdk: typeof import("@aws-sdk/client-s3") }> | undefined;
  const open = () =>
    (client ??= import("@aws-sdk/client-s3").then((sdk) => ({
      sdk,
      s3: new sdk.S3Client({
        region: options.region,
        forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
        ...(options.endpoint && { endpoint: options.endpoint }),
      }),
    })));
  const now = options.now ?? Date.now;
  const maxBytes = options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES;
  const minAgeMs = options.cacheMinAgeMs ?? DEFAULT_CACHE_MIN_AGE_MS;
  // The cache's size as this process knows it: measured by a prune, then grown by its own
  // downloads; when that passes the limit (or what the last prune could not free, plus an
  // eighth of the limit, so a cache held over its limit is not walked on every download),
  // the folder is pruned, which measures it again (other processes' copies included).
  let known: { bytes: number; pruneAbove: number } | undefined;
  const prune = () => {
    const { bytes } = pruneCache(options.cacheDir, { maxBytes, minAgeMs, now: now() });
    known = { bytes, pruneAbove: bytes > maxBytes ? bytes + maxBytes / 8 : maxBytes };
  };
  const downloaded = (size: number) => {
    if (!known) return prune();
    known.bytes += size;
    if (known.bytes > known.pruneAbove) prune();
  };
  /** Mark a cached copy used now; false when there is none. */
  const touch = (local: string): boolean => {
    try {
      utimesSync(local, new Date(now()), new Date(now()));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  };
  return {
    async fetch(url) {
      const { bucket, key } = parseS3Url(url);
      const local = join(options.cacheDir, bucket, ...key.split("/"));
      if (touch(local)) return local;
      const { s3, sdk } = await open();
      let bytes: Uint8Array;
      try {
        const res = await s3.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        bytes = res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
      } catch (err) {
        throw failed("read", url, err);
      }
      mkdirSync(dirname(local), { recursive: true });
      // Written aside and renamed: a concurrent reader sees the whole file or none.
      const part = `${local}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
      writeFileSync(part, bytes);
      utimesSync(part, new Date(now()), new Date(now()));
      renameSync(part, local);
      downloaded(bytes.length);
      return local;
    },
    async upload(path, url) {
      const { bucket, key } = parseS3Url(url);
      const { s3, sdk } = await open();
      try {
        await s3.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: readFileSync(path) }));
      } catch (err) {
        throw failed("write", url, err);
      }
    },
    async remove(url) {
      const { bucket, key } = parseS3Url(url);
      const { s3, sdk } = await open();
      try {
        await s3.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (err) {
        throw failed("delete", url, err);
      }
    },
    async list(urlPrefix) {
      const { bucket, key } = parseS3Url(urlPrefix);
      const { s3, sdk } = await open();
      const out: Array<{ url: string; modifiedMs: number }> = [];
      let token: string | undefined;
      try {
        do {
          const res = await s3.send(
            new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: key, ContinuationToken: token }),
          );
          for (const o of res.Contents ?? [])
            if (o.Key) out.push({ url: `s3://${bucket}/${o.Key}`, modifiedMs: o.LastModified?.getTime() ?? 0 });
          token = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw failed("list", urlPrefix, err);
      }
      return out.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    },
  };
}
