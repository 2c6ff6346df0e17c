/**
 * Real S3 (a local s3rver, through @aws-sdk/client-s3): the Quickstart's objects land in
 * the bucket under the configured prefix, a DuckDB script reads a glob and writes with
 * COPY … TO 's3://…' (staged through temporary files and uploaded), and Python reads the
 * result back through the bridge.
 */
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { startS3, type TestS3 } from "../helpers/s3rver.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const INGEST = `// pipeline
import * as wmill from 'windmill-client';

export async function main() {
	await wmill.writeS3File({ s3: 'demo/raw.json' }, JSON.stringify([{ n: 1 }, { n: 2 }]));
	await wmill.writeS3File({ s3: 'demo/more/a.json' }, JSON.stringify([{ n: 10 }]));
	await wmill.writeS3File({ s3: 'demo/more/b.json' }, JSON.stringify([{ n: 20 }]));
}
`;
const SUM_SQL = `-- pipeline
-- on s3://demo/raw.json
COPY (SELECT sum(n) AS total FROM read_json(['s3://demo/raw.json', 's3:///demo/more/*.json'])) TO 's3://demo/sum.json' (FORMAT json);
SELECT sum(n) AS total FROM read_json('s3://demo/more/*.json');
`;
const CHECK_PY = `# pipeline
# on s3://demo/sum.json
import json
import wmill


def main():
    return json.loads(wmill.load_s3_file("s3://demo/sum.json"))
`;

describe("s3:// on a real S3 server (s3rver)", () => {
  let s3: TestS3;
  let p: PipelineProject;
  beforeAll(async () => {
    s3 = await startS3(["sluice-test"]);
    p = await startPipelines(
      { "f/demo/ingest.ts": INGEST, "f/demo/sum.sql": SUM_SQL, "f/demo/check.py": CHECK_PY },
      { assets: { s3: { bucket: "sluice-test", prefix: "proj", endpoint: s3.endpoint } } },
    );
  });
  afterAll(async () => {
    await p?.close();
    await s3?.close();
  });

  it("runs the cascade with every object in the bucket", async () => {
    const h = await p.engine.enqueueRun("f/demo/ingest", {});
    await h.result({ timeoutMs: 15_000 });
    await p.settle({ timeoutMs: 30_000 });
    const [sum] = await p.runsOf("f/demo/sum");
    expect(sum?.status, JSON.stringify(sum?.error)).toBe("succeeded");
    expect(decodeValue(sum!.result)).toEqual([{ total: 30 }]);
    const obj = await s3.client.send(new GetObjectCommand({ Bucket: "sluice-test", Key: "proj/demo/sum.json" }));
    expect(JSON.parse(await obj.Body!.transformToString())).toEqual({ total: 33 });
    const [check] = await p.runsOf("f/demo/check");
    expect(check?.status, JSON.stringify(check?.error)).toBe("succeeded");
    expect(decodeValue(check!.result)).toEqual({ total: 33 });
  });
});
