/**
 * A real S3-compatible server for tests (s3rver on 127.0.0.1, a free port, its objects in a
 * temporary folder), with the credentials the AWS SDK reads from the environment set to the
 * ones s3rver accepts. One fixture for every test that needs S3: start it in `beforeAll`,
 * `close()` it in `afterAll`.
 */
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { tempDir } from "./tmp.js";

/** A running s3rver with its buckets. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A client of the server (path-style, region us-east-1). */
  readonly client: S3Client;
  /** Keys under `prefix` in `bucket`, sorted. */
  keys(bucket: string, prefix?: string): Promise<string[]>;
  /** Stop the server and the client. */
  close(): Promise<void>;
}

/** Credentials s3rver accepts, in the environment the AWS SDK (and child processes) read. */
const S3RVER_ENV = {
  AWS_ACCESS_KEY_ID: "S3RVER",
  AWS_SECRET_ACCESS_KEY: "S3RVER",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
} as const;

/** Start s3rver with `buckets` created; sets {@link S3RVER_ENV} in this process's environment. */
export async function startS3(buckets: readonly string[]): Promise<TestS3> {
  Object.assign(process.env, S3RVER_ENV);
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: tempDir("s3rver-"),
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true });
  return {
    endpoint,
    client,
    async keys(bucket, prefix = "") {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const res = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const o of res.Contents ?? []) if (o.Key) out.push(o.Key);
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}
