/**
 * A lake whose data path is `s3://bucket/prefix/` on a real S3-compatible server (s3rver,
 * through @aws-sdk/client-s3): every write strategy lands its Parquet files in the bucket
 * (staged locally, uploaded before the commit), a reader with an empty cache reads every
 * snapshot back from the bucket, a failed audit uploads nothing, and the orphan sweep
 * removes exactly the unreferenced objects.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { openSqliteCatalog } from "../../src/lake/catalog-sqlite.js";
import { sweepOrphans } from "../../src/lake/orphans.js";
import { LakeReader } from "../../src/lake/reader.js";
import { s3Files } from "../../src/lake/remote-files.js";
import { openLakeForWrite, type LakeWriter, type WriteRequest } from "../../src/lake/writer.js";
import { startS3, type TestS3 } from "../helpers/s3rver.js";
import { tempDir } from "../helpers/tmp.js";

const BUCKET = "lake-test";
const DATA = `s3://${BUCKET}/wh/`;

describe("a lake with s3:// data files (s3rver)", () => {
  let s3: TestS3;
  let lake: LakeWriter;
  let dir: string;
  const files = (cache: string) =>
    s3Files({ region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, cacheDir: cache });
  const objects = (): Promise<string[]> => s3.keys(BUCKET, "wh/");
  const write = (req: WriteRequest) => withDuckDb([], (conn) => lake.write(conn, req));

  beforeAll(async () => {
    s3 = await startS3([BUCKET]);
    dir = tempDir("sluice-lake-s3-");
    lake = await openLakeForWrite(join(dir, "main.sqlite"), { dataPath: DATA, remote: files(join(dir, "cache")) });
  });
  afterAll(async () => {
    await lake?.close();
    await s3?.close();
  });

  it("writes every strategy into the bucket and reads every snapshot back through an empty cache", async () => {
    const day = (d: string, ids: number[]) =>
      `SELECT * FROM (VALUES ${ids.map((i) => `(${i}, DATE '${d}', 'v${i}')`).join(", ")}) t(id, day, v)`;
    let staged: readonly string[] = [];
    const s1 = await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-01" },
      source: day("2024-03-01", [1, 2]),
    });
    const s2 = await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-02" },
      source: day("2024-03-02", [3]),
      audit: async (a) => {
        staged = a.files;
      },
    });
    // a partition replaced: its old file ends, the other partition's stays
    const s3 = await write({
      table: "events",
      mode: "replace",
      partition: { day: "2024-03-01" },
      source: day("2024-03-01", [4]),
    });
    const m1 = await write({
      table: "kv",
      mode: "append",
      source: "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(k, v)",
    });
    // a merge reads the bucket's file (its key lookups) and writes a delete file
    const m2 = await write({ table: "kv", mode: "merge", key: "k", source: "SELECT 2 AS k, 'B' AS v" });
    expect(staged.length).toBe(1);
    expect(
      staged.every((f) => !existsSync(f)),
      "the staging folder is removed after the commit",
    ).toBe(true);

    // every catalog path is an object in the bucket, and nothing else is
    const catalog = openSqliteCatalog(join(dir, "main.sqlite"), { readonly: true });
    const paths = await catalog.all(
      `SELECT 'wh/main/' || t.table_name || '/' || f.path AS key FROM ducklake_data_file f JOIN ducklake_table t USING (table_id)
       UNION ALL SELECT 'wh/main/' || t.table_name || '/' || d.path FROM ducklake_delete_file d JOIN ducklake_table t USING (table_id) ORDER BY 1`,
    );
    const meta = await catalog.all("SELECT value FROM ducklake_metadata WHERE key = 'data_path'");
    await catalog.close();
    expect(meta).toEqual([{ value: DATA }]);
    expect(paths.map((r) => r.key)).toEqual(await objects());
    expect(paths.map((r) => String(r.key).replace(/ducklake-[^/]*?(-delete)?\.parquet$/, "F$1"))).toEqual([
      "wh/main/events/day=2024-03-01/F",
      "wh/main/events/day=2024-03-01/F",
      "wh/main/events/day=2024-03-02/F",
      "wh/main/kv/F",
      "wh/main/kv/F-delete", // the merge writes its delete file before its new data file
      "wh/main/kv/F",
    ]);

    // a second reader, with its own empty cache, reads every snapshot from the bucket
    const cache = join(dir, "cache2");
    const reader = await LakeReader.open(openSqliteCatalog(join(dir, "main.sqlite"), { readonly: true }), {
      remote: files(cache),
    });
    try {
      const at = async (table: string, s: number) =>
        (
          await reader.query(
            table,
            { kind: "version", snapshotId: s },
            `SELECT ${table === "kv" ? "k" : "id"}, v FROM {table} ORDER BY ALL`,
          )
        ).map((r) => Object.values(r));
      expect(await at("events", s1.snapshotId)).toEqual([
        [1, "v1"],
        [2, "v2"],
      ]);
      expect(await at("events", s2.snapshotId)).toEqual([
        [1, "v1"],
        [2, "v2"],
        [3, "v3"],
      ]);
      expect(await at("events", s3.snapshotId)).toEqual([
        [3, "v3"],
        [4, "v4"],
      ]);
      expect(await at("kv", m1.snapshotId)).toEqual([
        [1, "a"],
        [2, "b"],
      ]);
      expect(await at("kv", m2.snapshotId)).toEqual([
        [1, "a"],
        [2, "B"],
      ]);
      expect(readdirSync(join(cache, BUCKET, "wh", "main")).sort()).toEqual(["events", "kv"]);
    } finally {
      await reader.close();
    }
  });

  it("uploads nothing for a write whose audit fails; the sweep removes only unreferenced lake objects", async () => {
    const before = await objects();
    const snapshot = (await lake.reader.snapshot()).snapshotId;
    await expect(
      write({
        table: "kv",
        mode: "append",
        source: "SELECT 9 AS k, 'z' AS v",
        audit: async () => {
          throw new Error("audit failed");
        },
      }),
    ).rejects.toThrow("audit failed");
    expect(await objects()).toEqual(before);
    expect((await lake.reader.snapshot()).snapshotId).toBe(snapshot);

    // what a writer that died between its upload and its commit leaves, and a foreign object
    const orphan = "wh/main/kv/ducklake-0190aaaa-0000-7000-8000-000000000000.parquet";
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: orphan, Body: "PAR1" }));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "wh/notes.txt", Body: "keep" }));
    expect(await sweepOrphans(lake.reader)).toEqual([]); // within the grace period
    expect(await sweepOrphans(lake.reader, { graceMs: 0, now: Date.now() + 1000 })).toEqual([
      `s3://${BUCKET}/${orphan}`,
    ]);
    expect(await objects()).toEqual([...before, "wh/notes.txt"].sort());
  });
  it("keeps the read cache within its size limit: least recently used copies go, copies in use stay", async () => {
    const cache = join(dir, "bounded");
    let t = Date.parse("2026-01-01T00:00:00Z");
    const reader = await LakeReader.open(openSqliteCatalog(join(dir, "main.sqlite"), { readonly: true }), {
      remote: s3Files({
        region: "us-east-1",
        endpoint: s3.endpoint,
        forcePathStyle: true,
        cacheDir: cache,
        cacheMaxBytes: 1,
        cacheMinAgeMs: 60_000,
        now: () => t,
      }),
    });
    const cached = (table: string) =>
      readdirSync(join(cache, BUCKET, "wh", "main", table), { recursive: true }).filter((f) =>
        String(f).endsWith(".parquet"),
      ).length;
    const kv = () => reader.query("kv", { kind: "latest" }, "SELECT k, v FROM {table} ORDER BY k");
    const events = () => reader.query("events", { kind: "latest" }, "SELECT count(*) AS n FROM {table}");
    try {
      // Over the limit from the first file, but every copy was just used: kept, and the scan reads them.
      expect(await kv()).toEqual([
        { k: 1, v: "a" },
        { k: 2, v: "B" },
      ]);
      expect(cached("kv")).toBe(3); // two data files and a delete file
      // Two minutes later the kv copies are the least recently used ones: the next downloads remove them.
      t += 120_000;
      expect(await events()).toEqual([{ n: 2 }]);
      expect(cached("events")).toBe(2);
      expect(cached("kv")).toBe(0);
      // Read again, kv's files are downloaded again (the events copies are still in their window).
      expect(await kv()).toEqual([
        { k: 1, v: "a" },
        { k: 2, v: "B" },
      ]);
      expect([cached("kv"), cached("events")]).toEqual([3, 2]);
    } finally {
      await reader.close();
    }
  });
});
