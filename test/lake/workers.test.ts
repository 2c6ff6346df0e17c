/**
 * Concurrent partitions from two worker processes (issue 11's evidence): two real `sluice
 * worker` processes on one store (a SQLite file; a Postgres database, whose lake catalog then
 * lives in it too) run a backfill of six daily partitions of one partitioned `ducklake://`
 * table, both writing. Every partition ends with its rows exactly once, every write is its
 * own snapshot (ids contiguous, none lost), and Sluice's lake reader returns the right rows at
 * the latest snapshot and at each earlier one.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openLake } from "../../src/lake/reader.js";
import { openPostgresLake } from "../../src/lake/writer.js";
import type { LakeReader } from "../../src/lake/reader.js";
import { testDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

// Rows per partition differ (20000 + day of month) so a partition written twice, or lost, shows.
const FILES = {
  "f/lake/daily.sql": `// pipeline
// partitioned daily
// materialize ducklake://main/events

SELECT '{partition}'::DATE AS day, i AS n, md5(i::VARCHAR) AS h FROM range(0, 20000 + day('{partition}'::DATE)) r(i)
`,
};
const DAYS = ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05", "2026-05-06"];
const rowsOf = (day: string) => 20000 + Number(day.slice(8));

interface Write {
  worker: number;
  partition: string;
  rows: number;
  snapshot: number;
}

/** The managed writes a worker printed (`materialized N row(s) into … partition P at snapshot S`). */
function writesOf(out: string, worker: number): Write[] {
  return [
    ...out.matchAll(/materialized (\d+) row\(s\) into ducklake:\/\/main\/events partition (\S+) at snapshot (\d+)/g),
  ].map((m) => ({ worker, rows: Number(m[1]), partition: m[2]!, snapshot: Number(m[3]) }));
}

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

/** Two workers up, a detached backfill of {@link DAYS}, followed to its end; the writes each worker made. */
async function backfillWithTwoWorkers(root: string, env: Record<string, string>): Promise<Write[]> {
  // one run at a time each, so neither worker can take every partition while the other waits
  const workers = [1, 2].map(() => spawnSluice(["worker", "--concurrency", "1", "--lease", "5s"], root, env));
  await Promise.all(workers.map((w) => w.waitFor(/ready: /, 30_000)));
  const started = await done(
    spawnSluice(
      [
        "pipeline",
        "backfill",
        "f/lake",
        "--from-partition",
        DAYS[0]!,
        "--to-partition",
        DAYS[5]!,
        "--concurrency",
        "6",
        "--detach",
      ],
      root,
      env,
    ),
  );
  expect(started.code, started.out + started.err).toBe(0);
  const id = /^backfill (\S+) of /m.exec(started.out)![1]!;
  const follow = await done(spawnSluice(["pipeline", "backfill", "status", id, "--follow"], root, env));
  expect(follow.code, follow.out + follow.err).toBe(0);
  expect(follow.out).toContain("backfilled 6 partition(s)");
  for (const w of workers) w.proc.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.exited));
  return workers.flatMap((w, i) => writesOf(w.output(), i + 1));
}

async function checkLake(lake: LakeReader, writes: readonly Write[]): Promise<void> {
  // both workers wrote; each partition was written once, with its rows
  expect(new Set(writes.map((w) => w.worker)), JSON.stringify(writes)).toEqual(new Set([1, 2]));
  expect(writes.map((w) => w.partition).sort()).toEqual(DAYS);
  for (const w of writes) expect(w.rows).toBe(rowsOf(w.partition));
  // one snapshot per partition write, ids contiguous: no commit lost, none duplicated
  expect(writes.map((w) => w.snapshot).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  const snaps = await lake.snapshots();
  expect(snaps.map((s) => s.snapshotId)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  const perDay =
    "SELECT CAST(day AS VARCHAR) AS day, count(*) AS n, count(DISTINCT n) AS distinct_n FROM {table} GROUP BY day ORDER BY day";
  // at each snapshot, exactly the partitions committed at or before it, each once
  for (let s = 1; s <= 6; s++) {
    const expected = writes
      .filter((w) => w.snapshot <= s)
      .map((w) => ({ day: w.partition, n: rowsOf(w.partition), distinct_n: rowsOf(w.partition) }))
      .sort((a, b) => (a.day < b.day ? -1 : 1));
    expect(await lake.query("events", { kind: "version", snapshotId: s }, perDay), `snapshot ${s}`).toEqual(expected);
  }
  expect(await lake.query("events", { kind: "latest" }, perDay)).toEqual(
    DAYS.map((d) => ({ day: d, n: rowsOf(d), distinct_n: rowsOf(d) })),
  );
}

describe("concurrent partitions from two worker processes", { timeout: 60_000 }, () => {
  it("on a SQLite store and lake catalog: both workers commit, every partition once, every snapshot kept", async () => {
    const root = makeProject(FILES, "sluice-lake-workers-");
    const writes = await backfillWithTwoWorkers(root, {});
    const lake = await openLake(join(root, ".sluice", "lakes", "main.sqlite"));
    try {
      await checkLake(lake, writes);
    } finally {
      await lake.close();
    }
  });

  describe("on Postgres", () => {
    let url: string;
    beforeAll(async () => {
      url = await testDatabase("lakeworkers");
    });

    it("the lake catalog in the project's database: both workers commit, every partition once", async () => {
      const root = makeProject(FILES, "sluice-lake-workers-pg-");
      const writes = await backfillWithTwoWorkers(root, { SLUICE_DATABASE_URL: url });
      const lake = await openPostgresLake(url, "sluice_lake_main", {
        dataPath: join(root, ".sluice", "lakes", "main"),
      });
      try {
        await checkLake(lake.reader, writes);
      } finally {
        await lake.close();
      }
    });
  });
});
