/**
 * A writer process SIGKILLed in the middle of publishing to a lake whose data files are on S3
 * (s3rver): after some or all of its files are uploaded and before its catalog commit. The
 * lake stays at its previous snapshot (rows, files and catalog rows unchanged: no partial
 * snapshot), every catalog path is still an object in the bucket, the uploaded objects are
 * unreferenced and the orphan sweep removes exactly them, and the next write commits and
 * reads back through an empty cache. The killed writer's local staging folder is kept by a
 * sweep while the writer lives and removed by the next write once it is dead. Runs the built
 * `dist/` in a real child process.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import type { CatalogDb } from "../../src/lake/catalog-db.js";
import { openSqliteCatalog } from "../../src/lake/catalog-sqlite.js";
import { sweepOrphans } from "../../src/lake/orphans.js";
import { LakeReader } from "../../src/lake/reader.js";
import { s3Files } from "../../src/lake/remote-files.js";
import { sweepStaleStaging } from "../../src/lake/staging-owner.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { REPO } from "../helpers/project.js";
import { startS3, type TestS3 } from "../helpers/s3rver.js";
import { tempDir } from "../helpers/tmp.js";

const BUCKET = "lake-crash";

/** Every catalog row that names a file, and the snapshots: what a partial commit would change. */
async function catalogState(db: CatalogDb): Promise<unknown> {
  return {
    snapshots: await db.all("SELECT snapshot_id FROM ducklake_snapshot ORDER BY 1"),
    data: await db.all("SELECT data_file_id, path, begin_snapshot, end_snapshot FROM ducklake_data_file ORDER BY 1"),
    deletes: await db.all("SELECT delete_file_id, path FROM ducklake_delete_file ORDER BY 1"),
    stats: await db.all("SELECT data_file_id, column_id FROM ducklake_file_column_stats ORDER BY 1, 2"),
    partitions: await db.all("SELECT data_file_id, partition_value FROM ducklake_file_partition_value ORDER BY 1"),
    table: await db.all("SELECT record_count, next_row_id FROM ducklake_table_stats"),
  };
}

/** Catalog paths as bucket keys (table `events` in schema `main` under prefix `wh/`). */
async function catalogKeys(db: CatalogDb): Promise<string[]> {
  const rows = await db.all("SELECT path FROM ducklake_data_file UNION ALL SELECT path FROM ducklake_delete_file");
  return rows.map((r) => `wh/main/events/${String(r.path)}`).sort();
}

describe("an s3:// lake writer killed with SIGKILL mid-publish (s3rver)", () => {
  let s3: TestS3;
  beforeAll(async () => {
    if (!existsSync(join(REPO, "dist", "lake", "writer.js")))
      throw new Error("dist/ is missing: run `npm run build` (npm test does it)");
    s3 = await startS3([BUCKET]);
  });
  afterAll(async () => {
    await s3?.close();
  });

  it.each([
    { uploaded: 1, what: "one of its three files uploaded" },
    { uploaded: 3, what: "all three files uploaded, before the commit" },
  ])(
    "leaves no partial snapshot with $what; the sweep removes the uploads and the next write commits",
    async ({ uploaded }) => {
      const dir = tempDir("sluice-lake-s3-crash-");
      const stageParent = join(dir, "tmp");
      mkdirSync(stageParent);
      const staged = () => readdirSync(stageParent).filter((n) => n.startsWith("sluice-lake-stage-"));
      const data = `s3://${BUCKET}/wh/`;
      const remote = (cache: string) =>
        s3Files({ region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, cacheDir: join(dir, cache) });
      // Each case its own lake: clear what the previous case left in the bucket's prefix.
      for (const key of await s3.keys(BUCKET, "wh/")) await remote("c0").remove(`s3://${BUCKET}/${key}`);
      const catalog = join(dir, "main.sqlite");
      const lake = await openLakeForWrite(catalog, { dataPath: data, remote: remote("cache") });
      try {
        const first = await withDuckDb([], (conn) =>
          lake.write(conn, {
            table: "events",
            mode: "replace",
            partitionBy: ["day"],
            source:
              "SELECT range AS id, DATE '2024-03-01' + CAST(range % 2 AS INTEGER) AS day, 'old' AS v FROM range(10)",
          }),
        );
        expect(first.snapshotId).toBe(1);
        const before = await catalogState(lake.db);
        const keysBefore = await s3.keys(BUCKET, "wh/");
        expect(keysBefore).toEqual(await catalogKeys(lake.db));
        expect(keysBefore).toHaveLength(2);

        const child = spawn(
          process.execPath,
          [
            join(REPO, "test", "lake", "fixtures", "s3-write-and-hang.mjs"),
            REPO,
            catalog,
            data,
            s3.endpoint,
            join(dir, "child-cache"),
            String(uploaded),
          ],
          // its local staging folder goes under a folder of this test's own
          { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: stageParent } },
        );
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const exited = new Promise<string | number>((r) => child.on("exit", (code, signal) => r(signal ?? code ?? -1)));
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no HANG line in 30 s; output:\n${out}`)), 30_000);
          const check = () => {
            if (out.includes("HANG")) {
              clearTimeout(timer);
              resolve();
            }
          };
          child.stdout.on("data", check);
          child.on("exit", () => {
            clearTimeout(timer);
            reject(new Error(`the writer exited before HANG; output:\n${out}`));
          });
        });
        // the live writer's staging folder, marked with its pid, survives a sweep
        expect(staged()).toHaveLength(1);
        const stage = join(stageParent, staged()[0]!);
        expect(JSON.parse(readFileSync(join(stage, ".sluice-writer.json"), "utf8")).pid).toBe(child.pid);
        expect(sweepStaleStaging(stageParent)).toEqual([]);
        expect(existsSync(stage)).toBe(true);
        child.kill("SIGKILL");
        expect(await exited).toBe("SIGKILL");
        expect(existsSync(stage)).toBe(true); // nothing of the killed writer removed it
        expect(out).not.toContain("COMMITTED");
        const uploads = [...out.matchAll(/UPLOADED (\S+)/g)].map((m) => m[1]!).sort();
        expect(uploads).toHaveLength(uploaded);

        // No partial snapshot: the catalog is exactly as before, and reads see the old rows.
        expect(await catalogState(lake.db)).toEqual(before);
        expect(
          await lake.reader.query("events", { kind: "latest" }, "SELECT count(*) AS n, min(v) AS v FROM {table}"),
        ).toEqual([{ n: 10, v: "old" }]);
        // No catalog entry without its object; the uploads are objects no catalog row names.
        const keysAfter = await s3.keys(BUCKET, "wh/");
        expect(await catalogKeys(lake.db)).toEqual(keysBefore);
        expect(keysAfter).toEqual([...keysBefore, ...uploads.map((u) => u.slice(`s3://${BUCKET}/`.length))].sort());

        expect(await sweepOrphans(lake.reader, { graceMs: 60_000 })).toEqual([]);
        expect((await sweepOrphans(lake.reader, { graceMs: 0, now: Date.now() + 1000 })).sort()).toEqual(uploads);
        expect(await s3.keys(BUCKET, "wh/")).toEqual(keysBefore);

        // The next write (staging under the same folder) removes the dead writer's staging folder and
        // its own, commits, and a reader with an empty cache reads it from the bucket.
        const tmp = process.env.TMPDIR;
        process.env.TMPDIR = stageParent;
        const next = await withDuckDb([], (conn) =>
          lake.write(conn, {
            table: "events",
            mode: "replace",
            partition: { day: "2024-03-01" },
            source: "SELECT 100 AS id, DATE '2024-03-01' AS day, 'next' AS v",
          }),
        ).finally(() => (tmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = tmp)));
        expect(next.snapshotId).toBe(2);
        expect(existsSync(stage)).toBe(false);
        expect(staged()).toEqual([]);
        expect(await s3.keys(BUCKET, "wh/")).toEqual(await catalogKeys(lake.db));
        const reader = await LakeReader.open(openSqliteCatalog(catalog, { readonly: true }), {
          remote: remote("fresh-cache"),
        });
        try {
          expect(
            await reader.query(
              "events",
              { kind: "latest" },
              "SELECT v, count(*) AS n FROM {table} GROUP BY v ORDER BY v",
            ),
          ).toEqual([
            { v: "next", n: 1 },
            { v: "old", n: 5 },
          ]);
        } finally {
          await reader.close();
        }
      } finally {
        await lake.close();
      }
    },
  );
});
