/**
 * A project on the Postgres store keeps its lakes' catalogs in its Postgres database (schema
 * `<store schema>_lake_<name>`), not in SQLite files: a managed materialization and the
 * TypeScript helper commit there and read back; `sluice lake …` (the real binary, `--db`) reads,
 * rolls back and sweeps that lake, and refuses bad input without writing anything.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresLake } from "../../src/lake/writer.js";
import { LakeSweeper } from "../../src/pipeline/runtime/lake-sweeper.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { sql, testDatabase } from "../helpers/postgres.js";
import { spawnSluice } from "../helpers/processes.js";
import { startPipelines, type PipelineProject } from "../pipeline/harness.js";

const DIM_SQL = `// pipeline
// materialize ducklake://main/dim key=id
// data_test unique id
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(id, label)
`;

const READ_TS = `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
  return (await wmill.ducklake().read("dim")).map((r) => r.label).sort();
}
`;

describe("lakes of a Postgres project", () => {
  let p: PipelineProject;
  let store: PostgresStore;
  let url: string;
  beforeAll(async () => {
    url = await testDatabase("lakepipe");
    store = openPostgresStore(url, { pollMs: 100 });
    await store.ready();
    p = await startPipelines({ "f/pg/dim.sql": DIM_SQL, "f/pg/read.ts": READ_TS }, { store });
  });
  afterAll(async () => {
    await p?.close();
    await store?.close();
  });

  it("commits materializations to the project's database and reads them back", async () => {
    const h = await p.pipelines.runScript("f/pg/dim", {});
    expect(await h.result({ timeoutMs: 20_000 })).toMatchObject({
      asset: "ducklake://main/dim",
      rows: 2,
      snapshot_id: 1,
    });
    const again = await p.pipelines.runScript("f/pg/dim", {});
    expect(await again.result({ timeoutMs: 20_000 })).toMatchObject({ rows: 2, snapshot_id: 2 });
    expect(existsSync(join(p.root, ".sluice", "lakes", "main.sqlite"))).toBe(false);
    const lake = await openPostgresLake(url, "sluice_lake_main", {
      dataPath: join(p.root, ".sluice", "lakes", "main"),
    });
    try {
      expect((await lake.reader.snapshots()).map((s) => s.snapshotId)).toEqual([0, 1, 2]);
      expect(await lake.reader.query("dim", { kind: "latest" }, "SELECT * FROM {table} ORDER BY id")).toEqual([
        { id: 1, label: "a" },
        { id: 2, label: "b" },
      ]);
    } finally {
      await lake.close();
    }
    const read = await p.pipelines.runScript("f/pg/read", {});
    expect(await read.result({ timeoutMs: 20_000 })).toEqual(["a", "b"]);
  });

  async function sluice(args: string[], db = url): Promise<{ code: number | string; out: string; stdout: string }> {
    const c = spawnSluice(["lake", ...args, "--dir", p.root, "--db", db], p.root);
    const code = await c.exited;
    return { code, out: c.output(), stdout: c.stdout() };
  }

  it("sluice lake snapshots, tables, schema, rollback and sweep work on the Postgres catalog", async () => {
    // after the first test: snapshot 1 wrote dim, snapshot 2 merged the same rows (a delete file and a new file)
    const snaps = await sluice(["snapshots", "main", "--json"]);
    expect(snaps.code, snaps.out).toBe(0);
    expect(JSON.parse(snaps.stdout).map((s: { snapshot_id: number }) => s.snapshot_id)).toEqual([0, 1, 2]);
    const tables = await sluice(["tables", "main", "--json"]);
    expect(tables.code, tables.out).toBe(0);
    expect(JSON.parse(tables.stdout)).toEqual([{ table: "main.dim", table_id: 1, rows: 2, files: 2, snapshot: 2 }]);
    const schema = await sluice(["schema", "main/dim", "--json"]);
    expect(schema.code, schema.out).toBe(0);
    expect(JSON.parse(schema.stdout).map((c: { name: string; type: string }) => `${c.name} ${c.type}`)).toEqual([
      "id INTEGER",
      "label VARCHAR",
    ]);
    const rollback = await sluice(["rollback", "main/dim", "--to", "1", "--json"]);
    expect(rollback.code, rollback.out).toBe(0);
    expect(JSON.parse(rollback.stdout)).toEqual({
      table: "main/dim",
      restored: 1,
      snapshot_id: 3,
      records: { partitions: [], restored: [""], schemaRestored: null, lineageRestored: null },
    });
    const after = await sluice(["tables", "main", "--json"]);
    expect(JSON.parse(after.stdout)).toEqual([{ table: "main.dim", table_id: 1, rows: 2, files: 1, snapshot: 3 }]);

    const dir = join(p.root, ".sluice", "lakes", "main", "main", "dim");
    mkdirSync(dir, { recursive: true });
    const orphan = join(dir, "ducklake-orphan.parquet");
    writeFileSync(orphan, "left by a killed writer");
    const old = (Date.now() - 2 * 3600_000) / 1000;
    utimesSync(orphan, old, old);
    const sweep = await sluice(["sweep", "main", "--json"]);
    expect(sweep.code, sweep.out).toBe(0);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ lake: "main", orphans: [orphan] });
    expect(existsSync(orphan)).toBe(false);
    const count = await sluice(["tables", "main", "--at", "2", "--json"]); // every snapshot still reads
    expect(JSON.parse(count.stdout)[0]).toMatchObject({ rows: 2, files: 2 });
  });

  it("refuses an unknown lake or table and an unreachable database, creating nothing", async () => {
    const lakeSchemas = async () =>
      (
        await sql<{ s: string }>(
          url,
          "SELECT schema_name AS s FROM information_schema.schemata WHERE schema_name LIKE 'sluice_lake_%' ORDER BY 1",
        )
      ).map((r) => r.s);
    const before = await lakeSchemas();
    const unknown = await sluice(["snapshots", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatch(
      /^sluice: lake nope does not exist in .*lakes there: main\).*ducklake:\/\/nope\/<table> first\n$/,
    );
    const table = await sluice(["rollback", "main/nope", "--to", "1"]);
    expect(table.code).toBe(1);
    expect(table.out).toContain("table main.nope does not exist");
    expect(await lakeSchemas()).toEqual(before);
    const down = await sluice(["tables", "main"], "postgres://sluice:secret@127.0.0.1:1/nowhere");
    expect(down.code).toBe(1);
    expect(down.out).toMatch(/^sluice: cannot reach Postgres at postgres:\/\/sluice:\*\*\*@127\.0\.0\.1:1\/nowhere/);
    expect(down.out).not.toContain("secret");
    expect((await sluice(["snapshots", "main", "--json"])).stdout).toContain('"snapshot_id": 3');
  });

  it("the automatic sweep finds the lake in the database and sweeps it once per interval", async () => {
    const dir = join(p.root, ".sluice", "lakes", "main", "main", "dim");
    const orphan = join(dir, "ducklake-auto.parquet");
    writeFileSync(orphan, "left by a killed writer");
    const now = Date.now();
    utimesSync(orphan, (now - 2 * 3600_000) / 1000, (now - 2 * 3600_000) / 1000);
    const sweeper = new LakeSweeper(
      store,
      () => p.pipelines.assets(),
      { olderThanMs: 3600_000 },
      () => {},
    );
    expect(await sweeper.pass(now)).toEqual([{ lake: "main", olderThanMs: 3600_000, removed: [orphan] }]);
    expect(await sweeper.pass(now + 1000)).toEqual([]); // its turn is taken for the hour
    expect(existsSync(orphan)).toBe(false);
  });
});
