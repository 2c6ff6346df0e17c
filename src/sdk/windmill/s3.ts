/**
 * Object storage helpers with windmill-client's names (`writeS3File`, `loadS3File`,
 * `loadS3FileStream`). `{ s3: "demo/raw.json" }` is the asset `s3://demo/raw.json`: a key
 * in the project's object store (a local folder by default, or the configured bucket).
 */
import { randomUUID } from "node:crypto";
import { InvalidInputError, SluiceError } from "../errors.js";
import { requireAssetHost } from "./asset-host.js";

/** A file in object storage, as windmill-client passes it around. */
export interface S3Object {
  /** The key, e.g. `demo/raw.json` (`s3://demo/raw.json`). */
  s3: string;
  /** A secondary storage name (not supported: Sluice has one object store). */
  storage?: string;
}

/**
 * Bytes loaded from object storage. A `Uint8Array` whose `toString()` decodes UTF-8, so
 * `JSON.parse(await loadS3File(obj))` reads a JSON file directly.
 */
export class S3FileContent extends Uint8Array {
  /** The content decoded as UTF-8. */
  override toString(): string {
    return new TextDecoder().decode(this);
  }
  /** The content decoded as UTF-8. */
  text(): string {
    return this.toString();
  }
}

function keyOf(obj: S3Object | string | undefined, what: string): string {
  const raw = typeof obj === "string" ? obj : obj?.s3;
  if (typeof raw !== "string" || raw.trim() === "")
    throw new InvalidInputError(
      `${what} needs an S3 object such as { s3: "demo/raw.json" }, got ${JSON.stringify(obj)}`,
      { code: "INVALID_S3_OBJECT" },
    );
  if (typeof obj === "object" && obj.storage)
    throw new InvalidInputError(
      `${what}: secondary storage ${JSON.stringify(obj.storage)} is not supported; Sluice has one object store (configure it in sluice.json "assets.s3")`,
      { code: "INVALID_S3_OBJECT" },
    );
  return raw
    .trim()
    .replace(/^s3:\/\//, "")
    .replace(/^\/+/, "");
}

async function bytesOf(content: unknown, what: string): Promise<Uint8Array> {
  if (typeof content === "string") return new TextEncoder().encode(content);
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  if (typeof Blob !== "undefined" && content instanceof Blob) return new Uint8Array(await content.arrayBuffer());
  throw new InvalidInputError(
    `${what} takes a string, Uint8Array, ArrayBuffer or Blob as content, got ${typeof content}`,
    { code: "INVALID_S3_CONTENT" },
  );
}

/**
 * Writes a file to object storage and returns its S3 object. Inside a pipeline run the
 * write is recorded as an asset of the run (`s3://<key>`) and fires the cascade when the
 * run succeeds.
 * @example await wmill.writeS3File({ s3: "demo/raw.json" }, JSON.stringify(rows));
 */
export async function writeS3File(
  s3object: S3Object | undefined,
  fileContent: string | Uint8Array | ArrayBuffer | Blob,
  _s3ResourcePath?: string,
  contentType?: string,
): Promise<S3Object> {
  const key = s3object === undefined ? `windmill_uploads/${randomUUID()}` : keyOf(s3object, "writeS3File");
  const body = await bytesOf(fileContent, "writeS3File");
  return { s3: await requireAssetHost("writeS3File").writeObject(key, body, contentType) };
}

/**
 * An object read with {@link loadS3File} does not exist in the object store: the step that
 * writes it has not run (for this partition), or the key is wrong. Windmill's client fails the
 * same way (the download answers 404); returning `undefined` made `JSON.parse` fail with
 * `"undefined" is not valid JSON`, naming neither the key nor the store.
 */
export class S3ObjectNotFoundError extends SluiceError {
  constructor(
    /** The key read, e.g. `demo/raw.json`. */
    readonly key: string,
    /** The object store, e.g. its directory or `s3://bucket/prefix/`. */
    readonly store: string,
  ) {
    super(
      "S3_OBJECT_NOT_FOUND",
      `no object ${key} in the object store (${store}); run the script that writes s3://${key} first (for a partitioned key, for this partition), or fix the key`,
    );
  }
}

/**
 * Reads a file from object storage.
 * @throws S3ObjectNotFoundError when it does not exist, naming the key and the store
 * @example const rows = JSON.parse(await wmill.loadS3File({ s3: "demo/raw.json" }));
 */
export async function loadS3File(s3object: S3Object, _s3ResourcePath?: string): Promise<S3FileContent> {
  const host = requireAssetHost("loadS3File");
  const key = keyOf(s3object, "loadS3File");
  const bytes = await host.readObject(key);
  if (bytes === undefined) throw new S3ObjectNotFoundError(key, host.objectStoreLabel());
  return new S3FileContent(bytes);
}

/**
 * Reads a file from object storage as a `Blob`.
 * @throws S3ObjectNotFoundError when it does not exist
 */
export async function loadS3FileStream(s3object: S3Object, s3ResourcePath?: string): Promise<Blob> {
  return new Blob([await loadS3File(s3object, s3ResourcePath)]);
}

/** Splits an S3 object into its key and storage, as windmill-client's `parseS3Object`. */
export function parseS3Object(s3Object: S3Object | string): { s3: string; storage: string | undefined } {
  return typeof s3Object === "string"
    ? { s3: s3Object.replace(/^s3:\/\//, "").replace(/^\/+/, ""), storage: undefined }
    : { s3: s3Object.s3, storage: s3Object.storage };
}
