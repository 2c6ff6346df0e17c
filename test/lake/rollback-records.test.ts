/**
 * Sluice's records of a lake table follow `sluice lake rollback` (real binaries: a `sluice dev`
 * serving the API, and the CLI for backfills, rollbacks, status and lineage), on SQLite and on
 * Postgres: after a backfill of five days and a rollback to the snapshot of the second, the
 * partition grid (`GET /api/lake/table`) and `sluice pipeline status` show only what the table
 * holds, and the same backfill runs exactly the three undone days again (the table then holds
 * all five). A rollback across a column change makes the older schema version and column
 * lineage current from the rollback's snapshot on (CLI `--at` and the API), history kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

const FILES = {
  "f/part/ev.sql": `// pipeline
// partitioned daily
// materialize ducklake://main/ev key=n

SELECT '{partition}'::DATE AS day, '{partition}' || '-' || i AS n FROM range(0, 3) r(i)
`,
  "f/whole/t.sql": `// pipeline
// materialize ducklake://main/whole

SELECT 1 AS n
`,
  "f/evo/writer.ts": `// pipeline
// column kind <- ducklake://main/raw.kind_code
// column label <- ducklake://main/raw.label_text
import * as wmill from 'windmill-client';

export async function main(wide: boolean) {
  const rows = wide ? [{ id: 1, kind: "a", label: "x" }] : [{ id: 1, kind: "a" }];
  return await wmill.ducklake().upsertPartition("evo", rows);
}
`,
};
const DAYS = ["2026-01-08", "2026-01-09", "2026-01-10", "2026-01-11", "2026-01-12"];

interface Slice {
  partition: string | null;
  snapshot_id: number;
  rows: number;
}

function suite(store: string, env: () => Promise<Record<string, string>>) {
  describe(`records of a rolled-back lake table (${store})`, () => {
    let root: string;
    let vars: Record<string, string>;
    let dev: SluiceProcess;
    let url: string;
    beforeAll(async () => {
      vars = await env();
      root = makeProject(FILES, "sluice-rollback-records-");
      // shared: it serves every test of the file (unshared processes are killed after each test)
      dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, vars, { shared: true });
      await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
      url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    }, 60_000);
    afterAll(async () => {
      dev?.proc.kill("SIGTERM");
      await dev?.exited;
    });

    const sluice = async (...args: string[]) => {
      const p = spawnSluice(args, root, vars);
      const code = await p.exited;
      expect(code, p.output()).toBe(0);
      return p.stdout();
    };
    const detail = async (uri: string, snapshot?: number): Promise<any> => {
      const res = await fetch(
        `${url}/api/lake/table?uri=${uri}${snapshot === undefined ? "" : `&snapshot=${snapshot}`}`,
      );
      expect(res.status).toBe(200);
      return res.json();
    };
    const grid = async () =>
      ((await detail("ducklake://main/ev")).partitions as Slice[])
        .map((s) => [s.partition, s.snapshot_id, s.rows] as const)
        .sort((a, b) => a[1] - b[1]);
    const written = async () =>
      /ducklake:\/\/main\/ev\s+written: (.*)/.exec(await sluice("pipeline", "status", "f/part"))?.[1];
    const backfill = () =>
      sluice("pipeline", "backfill", "f/part", "--from-partition", DAYS[0]!, "--to-partition", DAYS[4]!);

    it("drops the undone partitions from the grid and status; a backfill runs exactly them again", async () => {
      expect(await backfill()).toContain("backfilled 5 partition(s)\n");
      const before = await grid();
      expect(before.map(([p]) => p).sort()).toEqual(DAYS);
      expect(await written()).toBe(DAYS.join(", "));
      const to = before[1]![1];
      const kept = before.slice(0, 2).map(([p]) => p!);
      const undone = before.slice(2).map(([p]) => p!);

      const rolled = JSON.parse(await sluice("lake", "rollback", "main/ev", "--to", String(to), "--json"));
      const rollback = rolled.snapshot_id as number;
      expect(await grid()).toEqual(before.slice(0, 2));
      expect(await written()).toBe([...kept].sort().join(", "));
      expect(rolled.records.partitions).toEqual([...undone].sort());
      const [held] = JSON.parse(await sluice("lake", "tables", "main", "--json"));
      expect(held.rows).toBe(6);

      expect(await backfill()).toContain("backfilled 5 partition(s), 2 skipped as already done\n");
      const after = await grid();
      expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
      expect(
        after
          .slice(2)
          .map(([p]) => p)
          .sort(),
      ).toEqual([...undone].sort());
      for (const [, snapshot, rows] of after.slice(2)) expect([snapshot > rollback, rows]).toEqual([true, 3]);
      expect(await written()).toBe(DAYS.join(", "));
      const [full] = JSON.parse(await sluice("lake", "tables", "main", "--json"));
      expect(full.rows).toBe(15);
      const days = JSON.parse(await sluice("lake", "schema", "main/ev", "--json")).map((c: { name: string }) => c.name);
      expect(days).toContain("day");

      // a second rollback, to the snapshot before the first one: the table holds the first
      // backfill's five days again, and so do the records the first rollback removed
      const rows = async () => JSON.parse(await sluice("lake", "tables", "main", "--json"))[0].rows;
      const back = JSON.parse(await sluice("lake", "rollback", "main/ev", "--to", String(before[4]![1]), "--json"));
      expect(await rows()).toBe(15);
      expect(await grid()).toEqual(before);
      expect(back.records).toMatchObject({ partitions: [], restored: [...undone].sort() });
      expect(await written()).toBe(DAYS.join(", "));
      // the restored days are done again: a backfill has nothing to run
      expect(await backfill()).toContain("backfilled 5 partition(s), 5 skipped as already done\n");
      expect(await grid()).toEqual(before);
      // and to the snapshot right after the first rollback: two days, as the table holds
      await sluice("lake", "rollback", "main/ev", "--to", String(rollback));
      expect(await rows()).toBe(6);
      expect(await grid()).toEqual(before.slice(0, 2));
      expect(await written()).toBe([...kept].sort().join(", "));
    }, 240_000);

    it("brings back the status of a whole-table write that a later write replaced", async () => {
      const status = async () =>
        /ducklake:\/\/main\/whole\s+(.*)/.exec(await sluice("pipeline", "status", "f/whole"))?.[1];
      await sluice("pipeline", "run", "f/whole");
      const first = (await detail("ducklake://main/whole")).partitions[0].snapshot_id as number;
      await sluice("pipeline", "run", "f/whole");
      expect(await status()).toBe("written: (unpartitioned)");
      const rolled = JSON.parse(await sluice("lake", "rollback", "main/whole", "--to", String(first), "--json"));
      expect(rolled.records).toMatchObject({ partitions: [], restored: [""] });
      // the first write's record is current again, and so is its status entry (it said "not written yet")
      expect((await detail("ducklake://main/whole")).partitions[0].snapshot_id).toBe(first);
      expect(await status()).toBe("written: (unpartitioned)");
    }, 120_000);

    it("makes the schema version and column lineage of the snapshot rolled back to current again", async () => {
      const EVO = "ducklake://main/evo";
      const outputs = (l: { columns: Array<{ output: string }> }) => l.columns.map((c) => c.output);
      await sluice("pipeline", "run", "f/evo", "--args", JSON.stringify({ wide: false }));
      const narrow = (await detail(EVO)).lineage.snapshot_id as number;
      await sluice("pipeline", "run", "f/evo", "--args", JSON.stringify({ wide: true }));
      const wide = (await detail(EVO)).lineage.snapshot_id as number;
      expect(wide).toBeGreaterThan(narrow);

      const rolled = JSON.parse(await sluice("lake", "rollback", "main/evo", "--to", String(narrow), "--json"));
      const rollback = rolled.snapshot_id as number;

      const now = JSON.parse(await sluice("lake", "lineage", "main/evo", "--at", String(rollback), "--json"));
      expect([outputs(now), now.snapshot_id, now.restores]).toEqual([["kind"], rollback, narrow]);
      const then = JSON.parse(await sluice("lake", "lineage", "main/evo", "--at", String(wide), "--json"));
      expect(outputs(then)).toEqual(["kind", "label"]);
      const text = await sluice("lake", "lineage", "main/evo");
      expect(text).toContain(`snapshot ${rollback}, restored by a rollback from snapshot ${narrow}`);

      const d = await detail(EVO);
      const names = (v: { columns: Array<{ name: string }> }) => v.columns.map((c) => c.name);
      expect(
        d.schema.map((v: { version: number; snapshot_id: number; restores?: number; columns: [] }) => [
          v.version,
          v.snapshot_id,
          v.restores ?? null,
          names(v),
        ]),
      ).toEqual([
        [1, narrow, null, ["id", "kind"]],
        [2, wide, null, ["id", "kind", "label"]],
        [3, rollback, 1, ["id", "kind"]],
      ]);
      expect(outputs(d.lineage)).toEqual(["kind"]);
      expect(outputs((await detail(EVO, wide)).lineage)).toEqual(["kind", "label"]);
      const columns = JSON.parse(await sluice("lake", "schema", "main/evo", "--json")).map(
        (c: { name: string }) => c.name,
      );
      expect(columns).toEqual(names(d.schema[2]));
      // the table holds the narrow write again, so its record is the table's record again
      expect(rolled.records).toMatchObject({
        partitions: [],
        restored: [""],
        schemaRestored: 1,
        lineageRestored: narrow,
      });
      expect((await detail(EVO)).partitions.map((s: Slice) => s.snapshot_id)).toEqual([narrow]);
    }, 120_000);
  });
}

suite("SQLite", async () => ({}));
suite("Postgres", async () => ({ SLUICE_DATABASE_URL: await testDatabase("rollrec") }));
