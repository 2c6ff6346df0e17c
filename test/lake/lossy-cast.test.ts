/**
 * A slice whose column cannot be stored exactly in the table's existing column (DOUBLE into
 * INTEGER) is refused by merge, append and partition replace, with the binary: the run fails
 * naming table, column and both types, and the table keeps its snapshot and values; a widening
 * cast (INTEGER into a BIGINT column) is written.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "f/create/t.sql": `-- pipeline
-- materialize ducklake://main/t
SELECT * FROM (VALUES (1::BIGINT, 10), (2, 20)) v(id, x)
`,
  "f/merge/t.sql": `-- pipeline
-- materialize ducklake://main/t key=id
SELECT * FROM (VALUES (2, 2.7::DOUBLE), (3, 3.5::DOUBLE)) v(id, x)
`,
  "f/append/t.sql": `-- pipeline
-- materialize ducklake://main/t append
SELECT 4 AS id, 4.2::DOUBLE AS x
`,
  "f/widen/t.sql": `-- pipeline
-- materialize ducklake://main/t append
SELECT 5 AS id, 50 AS x
`,
  "f/daily/p.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/p
SELECT 1 AS id, 10 AS x
`,
  "f/daily2/p.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/p
SELECT 1 AS id, 1.5::DOUBLE AS x
`,
  "f/read/t.sql": `-- pipeline
ATTACH 'ducklake://main' AS dl;
SELECT id, x FROM dl.t ORDER BY id
`,
};

describe("a lossy cast into an existing column", () => {
  let root: string;
  const sluice = (...args: string[]) => finished(spawnSluice(args, root));
  const snapshots = async () => {
    const r = await sluice("lake", "snapshots", "main", "--json");
    expect(r.code).toBe(0);
    return (JSON.parse(r.out) as unknown[]).length;
  };
  const rows = async () => {
    const r = await sluice("pipeline", "run", "f/read", "--json");
    expect(r.code).toBe(0);
    return (JSON.parse(r.out) as { steps: { result: unknown }[] }).steps[0]!.result;
  };
  beforeAll(async () => {
    root = makeProject(FILES);
    expect((await sluice("pipeline", "run", "f/create")).code).toBe(0);
  });

  it("merge and append refuse DOUBLE into an INTEGER column, committing nothing", async () => {
    const before = await snapshots();
    for (const [folder, mode] of [
      ["f/merge", "merge"],
      ["f/append", "append"],
    ]) {
      const r = await sluice("pipeline", "run", folder!);
      expect([mode, r.code]).toEqual([mode, 1]);
      expect(r.out + r.err).toContain(
        "table main.t: column x is DOUBLE in the SELECT but INTEGER in the table, and writing it would change values",
      );
      expect(r.out + r.err).toContain("CAST(x AS INTEGER)");
    }
    expect(await snapshots()).toBe(before);
    expect(await rows()).toEqual([
      { id: 1, x: 10 },
      { id: 2, x: 20 },
    ]);
  });

  it("a widening cast (INTEGER into BIGINT) is written", async () => {
    expect((await sluice("pipeline", "run", "f/widen")).code).toBe(0);
    expect(await rows()).toEqual([
      { id: 1, x: 10 },
      { id: 2, x: 20 },
      { id: 5, x: 50 },
    ]);
  });

  it("a partition replace refuses it too", async () => {
    expect((await sluice("pipeline", "run", "f/daily", "--partition", "2026-01-01")).code).toBe(0);
    const before = await snapshots();
    const r = await sluice("pipeline", "run", "f/daily2", "--partition", "2026-01-01");
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain("table main.p: column x is DOUBLE in the SELECT but INTEGER in the table");
    expect(await snapshots()).toBe(before);
  });
});
