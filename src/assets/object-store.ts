/**
 * The object store behind `s3://<key>` assets: one interface, a local-directory
 * implementation (the default) and an S3 one (`@aws-sdk/client-s3`, loaded on first use).
 */
import type { S3Config } from "./config.js";

// The implementations, loaded on first use, import the key check from safe-path.ts (no cycle).
export { checkObjectKey } from "./safe-path.js";

/** Where `s3://` objects live. Keys are `/`-separated relative paths (`demo/raw.json`). */
export interface ObjectStore {
  /** `local` (a directory) or `s3` (a bucket). */
  readonly kind: "local" | "s3";
  /** Human description for messages, e.g. `s3://bucket/prefix/` or a directory. */
  readonly label: string;
  /** The object's bytes, or `undefined` when it does not exist. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Writes (replaces) an object. */
  put(key: string, body: Uint8Array, contentType?: string): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Removes an object (no error when absent). */
  delete(key: string): Promise<void>;
  /** For `local`: the file that holds `key`. */
  localPath?(key: string): string;
}

/** Open the object store a configuration names. */
export async function openObjectStore(config: S3Config): Promise<ObjectStore> {
  if (config.kind === "local") {
    const { LocalObjectStore } = await import("./object-store-local.js");
    return new LocalObjectStore(config.dir);
  }
  const { S3ObjectStore } = await import("./object-store-s3.js");
  return new S3ObjectStore(config);
}
