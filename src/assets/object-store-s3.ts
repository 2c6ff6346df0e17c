/**
 * `s3://` objects in a real bucket through `@aws-sdk/client-s3` (AWS, or an
 * S3-compatible server with `endpoint` and path-style addressing). Credentials come from
 * the SDK's default chain (environment variables, profile), never from Sluice's config.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { S3Config } from "./config.js";
import { AssetError } from "./errors.js";
import type { ObjectStore } from "./object-store.js";
import { checkObjectKey } from "./safe-path.js";

type S3BucketConfig = Extract<S3Config, { kind: "s3" }>;

function failed(op: string, key: string, err: unknown): AssetError {
  return new AssetError(
    "ASSET_BACKEND_FAILED",
    `S3 ${op} of ${JSON.stringify(key)} failed: ${(err as Error)?.message ?? String(err)}; check the bucket, endpoint and credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)`,
    { cause: err },
  );
}

/** An object store on an S3 bucket (under an optional key prefix). */
export class S3ObjectStore implements ObjectStore {
  readonly kind = "s3" as const;
  readonly label: string;
  private readonly client: S3Client;

  constructor(private readonly config: S3BucketConfig) {
    this.label = `s3://${config.bucket}/${config.prefix}`;
    this.client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    });
  }

  private objectKey(key: string): string {
    return this.config.prefix + checkObjectKey(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }),
      );
      return res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (
        name === "NoSuchKey" ||
        name === "NotFound" ||
        (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      )
        return undefined;
      throw failed("read", key, err);
    }
  }

  async put(key: string, body: Uint8Array, contentType?: string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: this.objectKey(key),
          Body: body,
          ...(contentType ? { ContentType: contentType } : {}),
        }),
      );
    } catch (err) {
      throw failed("write", key, err);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    try {
      do {
        const res = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.config.bucket,
            Prefix: this.config.prefix + prefix,
            ContinuationToken: token,
          }),
        );
        for (const o of res.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.config.prefix.length));
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw failed("list", prefix, err);
    }
    return out.sort();
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      throw failed("delete", key, err);
    }
  }
}
