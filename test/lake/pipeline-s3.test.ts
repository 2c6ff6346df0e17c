/**
 * A project whose lakes keep their data files in its bucket (`"assets": {"s3": {…},
 * "lakes": {"data": "s3"}}`) on a real S3-compatible server (s3rver): a `// materialize`
 * script writes its table's Parquet into the bucket, a merge on a key reads it back, and a
 * script that ATTACHes the lake time travels over it; nothing lands in the local data folder;
 * `sluice lake rollback` restores an old snapshot of it, and `sluice lake tables|schema|sweep`
 * (the binary, reading the project's `sluice.json`) read and sweep it through the bucket.
 */
import { existsSync, writeFileSync } from "node:fs";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { startS3, type TestS3 } from "../helpers/s3rver.js";
import { startPipelines, type PipelineProject } from "../pipeline/harness.js";

const ORDERS_SQL = `-- pipeline
-- materialize ducklake://main/orders
SELECT * FROM (VALUES (1::BIGINT, 'paid', 10.5), (2, 'pending', 20.0)) t(order_id, status, amount)
`;
const UPDATE_SQL = `-- pipeline
-- materialize ducklake://main/orders key=order_id
SELECT 2::BIGINT AS order_id, 'paid' AS status, 20.0 AS amount
`;
const TRAVEL_SQL = `-- pipeline
ATTACH 'ducklake://main' AS dl;
SELECT
  (SELECT string_agg(status, ',' ORDER BY order_id) FROM dl.orders AT (VERSION => 1)) AS v1,
  (SELECT string_agg(status, ',' ORDER BY order_id) FROM dl.orders) AS latest
`;

describe("project lakes with data in the bucket (lakes.data = s3, s3rver)", () => {
  let s3: TestS3;
  let p: PipelineProject;
  beforeAll(async () => {
    s3 = await startS3(["sluice-lake"]);
    const assets = { s3: { bucket: "sluice-lake", prefix: "proj", endpoint: s3.endpoint }, lakes: { data: "s3" } };
    p = await startPipelines(
      { "f/lk/orders.sql": ORDERS_SQL, "f/lk/update.sql": UPDATE_SQL, "f/lk/travel.sql": TRAVEL_SQL },
      { assets },
    );
    writeFileSync(join(p.root, "sluice.json"), JSON.stringify({ assets })); // what the CLI reads
  });
  afterAll(async () => {
    await p?.close();
    await s3?.close();
  });

  it("materializes into the bucket, merges and time travels over it", async () => {
    const first = await p.pipelines.runScript("f/lk/orders", {});
    expect(await first.result({ timeoutMs: 20_000 })).toEqual({
      asset: "ducklake://main/orders",
      rows: 2,
      snapshot_id: 1,
    });
    const merged = await p.pipelines.runScript("f/lk/update", {});
    expect(await merged.result({ timeoutMs: 20_000 })).toEqual({
      asset: "ducklake://main/orders",
      rows: 1,
      snapshot_id: 2,
    });
    const travel = await p.pipelines.runScript("f/lk/travel", {});
    expect(await travel.result({ timeoutMs: 20_000 })).toEqual([{ v1: "paid,pending", latest: "paid,paid" }]);

    const keys = (await s3.keys("sluice-lake", "proj/lakes/main/"))
      .map((k) => k.replace(/ducklake-[^/]*?(-delete)?\.parquet$/, "F$1"))
      .sort();
    // the first data file, the merge's delete file on it and its new row
    expect(keys).toEqual([
      "proj/lakes/main/main/orders/F",
      "proj/lakes/main/main/orders/F",
      "proj/lakes/main/main/orders/F-delete",
    ]);
    expect(existsSync(join(p.root, ".sluice", "lakes", "main"))).toBe(false);
    expect(existsSync(join(p.root, ".sluice", "lakes", "main.sqlite"))).toBe(true);

    // `sluice lake rollback` (the real binary) of a table whose files are in the bucket: a new
    // snapshot equal to snapshot 1, read back through the bucket by the next script.
    const rollback = spawnSluice(["lake", "rollback", "main/orders", "--to", "1", "--json", "--dir", p.root], p.root);
    expect(await rollback.exited, rollback.output()).toBe(0);
    // the merge's write is undone in Sluice's records (the first write's record of the whole table is back), and the seed script's lineage is current again
    expect(JSON.parse(rollback.stdout())).toEqual({
      table: "main/orders",
      restored: 1,
      snapshot_id: 3,
      records: { partitions: [], restored: [""], schemaRestored: null, lineageRestored: 1 },
    });
    const after = await p.pipelines.runScript("f/lk/travel", {});
    expect(await after.result({ timeoutMs: 20_000 })).toEqual([{ v1: "paid,pending", latest: "paid,pending" }]);
    expect((await s3.keys("sluice-lake", "proj/lakes/main/")).length).toBe(3); // no object written or removed

    const cli = async (...args: string[]) => {
      const c = spawnSluice(["lake", ...args, "--json", "--dir", p.root], p.root);
      expect(await c.exited, c.output()).toBe(0);
      return JSON.parse(c.stdout());
    };
    // rows are counted from the bucket's files (through the CLI's own cache), at the latest and an old snapshot
    expect(await cli("tables", "main")).toEqual([
      { table: "main.orders", table_id: 1, rows: 2, files: 1, snapshot: 3 },
    ]);
    expect(await cli("tables", "main", "--at", "2")).toMatchObject([{ rows: 2, files: 2 }]);
    expect((await cli("schema", "main/orders")).map((c: { name: string }) => c.name)).toEqual([
      "order_id",
      "status",
      "amount",
    ]);
    const orphan = "proj/lakes/main/main/orders/ducklake-orphan.parquet";
    await s3.client.send(new PutObjectCommand({ Bucket: "sluice-lake", Key: orphan, Body: "left by a killed writer" }));
    expect(await cli("sweep", "main")).toMatchObject({ orphans: [] }); // younger than the default hour
    expect(await cli("sweep", "main", "--older-than", "0")).toMatchObject({ orphans: [`s3://sluice-lake/${orphan}`] });
    expect((await s3.keys("sluice-lake", "proj/lakes/main/")).length).toBe(3);
  });
});
