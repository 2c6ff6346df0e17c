/**
 * A project on the Postgres store keeps its lakes' catalogs in its Postgres database (schema
 * `<store schema>_lake_<name>`), not in SQLite files: a managed materialization and the
 * TypeScript helper commit there and read back.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresLake } from "../../src/lake/writer.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { testDatabase } from "../helpers/postgres.js";
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
});
