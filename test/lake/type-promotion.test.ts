/**
 * DuckLake's type promotions through append, merge and partition replace, with the binary: a
 * SELECT that gives a column a type the column may be promoted to (INTEGER → BIGINT, FLOAT →
 * DOUBLE, SMALLINT → INTEGER) widens the column as a new snapshot (a new column version with the
 * same column id, the schema version recorded), older snapshots still read with the old type; a
 * change DuckLake does not allow (BIGINT → HUGEINT, UINTEGER → BIGINT) stays refused.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "f/create/t.sql": `-- pipeline
-- materialize ducklake://main/t
SELECT * FROM (VALUES (1, 10, 1.5::FLOAT, 7::UINTEGER)) v(id, x, f, u)
`,
  "f/append/t.sql": `-- pipeline
-- materialize ducklake://main/t append
SELECT 2 AS id, 3000000000::BIGINT AS x, 0.1::DOUBLE AS f, 8::UINTEGER AS u
`,
  "f/merge/t.sql": `-- pipeline
-- materialize ducklake://main/t key=id
SELECT 1::BIGINT AS id, 11::BIGINT AS x
`,
  "f/huge/t.sql": `-- pipeline
-- materialize ducklake://main/t append
SELECT 3 AS id, 1::HUGEINT AS x
`,
  "f/signed/t.sql": `-- pipeline
-- materialize ducklake://main/t append
SELECT 4 AS id, 9::BIGINT AS u
`,
  "f/daily/p.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/p
SELECT 1 AS id, 10::SMALLINT AS x
`,
  "f/daily2/p.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://main/p
SELECT 1 AS id, 70000 AS x
`,
  // each snapshot read through time travel (the tests run in order, so the snapshots are known)
  ...Object.fromEntries(
    [
      ["t", 1],
      ["t", 2],
      ["t", 3],
      ["p", 4],
      ["p", 5],
    ].map(([table, at]) => [
      `f/read_${table}${at}/r.sql`,
      `-- pipeline\nATTACH 'ducklake://main' AS dl;\nSELECT *, typeof(x) AS tx FROM dl.${table} AT (VERSION => ${at}) ORDER BY ALL\n`,
    ]),
  ),
};

interface Column {
  column_id: number;
  name: string;
  type: string;
  begin_snapshot: number;
  end_snapshot: number | null;
}

describe("type promotion of a lake column", () => {
  let root: string;
  const sluice = (...args: string[]) => finished(spawnSluice(args, root));
  const run = async (folder: string, ...args: string[]) => {
    const r = await sluice("pipeline", "run", folder, "--json", ...args);
    expect(r.code, r.out + r.err).toBe(0);
    return (JSON.parse(r.out) as { steps: { result: any }[] }).steps[0]!.result;
  };
  const history = async (table: string): Promise<Column[]> => {
    const r = await sluice("lake", "schema", `main/${table}`, "--history", "--json");
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out);
  };
  const read = (table: string, at: number) => run(`f/read_${table}${at}`);
  beforeAll(async () => {
    root = makeProject(FILES);
    await run("f/create");
  });

  it("an append widens INTEGER to BIGINT and FLOAT to DOUBLE; the old snapshot reads the old types", async () => {
    const { snapshot_id: s } = await run("f/append");
    expect(s).toBe(2);
    expect(await history("t")).toEqual([
      { column_id: 1, name: "id", type: "INTEGER", begin_snapshot: 1, end_snapshot: null },
      { column_id: 2, name: "x", type: "INTEGER", begin_snapshot: 1, end_snapshot: 2 },
      { column_id: 3, name: "f", type: "FLOAT", begin_snapshot: 1, end_snapshot: 2 },
      { column_id: 4, name: "u", type: "UINTEGER", begin_snapshot: 1, end_snapshot: null },
      { column_id: 2, name: "x", type: "BIGINT", begin_snapshot: 2, end_snapshot: null },
      { column_id: 3, name: "f", type: "DOUBLE", begin_snapshot: 2, end_snapshot: null },
    ]);
    expect(await read("t", 1)).toEqual([{ id: 1, x: 10, f: 1.5, u: 7, tx: "INTEGER" }]);
    expect(await read("t", 2)).toEqual([
      { id: 1, x: 10, f: 1.5, u: 7, tx: "BIGINT" },
      { id: 2, x: 3000000000, f: 0.1, u: 8, tx: "BIGINT" },
    ]);
    const snaps = JSON.parse((await sluice("lake", "snapshots", "main", "--json")).out);
    expect(snaps[2].changes).toEqual({ tables_altered: ["1"], tables_inserted_into: ["1"] });
  });

  it("a merge widens its key column; rows merge across the old and new type", async () => {
    const { snapshot_id: s } = await run("f/merge");
    expect(s).toBe(3);
    expect((await history("t")).filter((c) => c.name === "id").map((c) => [c.type, c.end_snapshot])).toEqual([
      ["INTEGER", s],
      ["BIGINT", null],
    ]);
    expect(await read("t", s)).toEqual([
      { id: 1, x: 11, f: null, u: null, tx: "BIGINT" },
      { id: 2, x: 3000000000, f: 0.1, u: 8, tx: "BIGINT" },
    ]);
  });

  it("refuses a type change DuckLake does not allow, committing nothing", async () => {
    const before = (await history("t")).length;
    for (const [folder, text] of [
      ["f/huge", "column x is HUGEINT in the SELECT but BIGINT in the table"],
      ["f/signed", "column u is BIGINT in the SELECT but UINTEGER in the table"],
    ] as const) {
      const r = await sluice("pipeline", "run", folder);
      expect(r.code).toBe(1);
      expect(r.out + r.err).toContain(text);
      expect(r.out + r.err).toContain("widen a column only by DuckLake's type promotions");
    }
    expect((await history("t")).length).toBe(before);
  });

  it("a partition replace widens SMALLINT to INTEGER", async () => {
    const first = await run("f/daily", "--partition", "2026-01-01");
    const second = await run("f/daily2", "--partition", "2026-01-02");
    expect([first.snapshot_id, second.snapshot_id]).toEqual([4, 5]);
    expect((await history("p")).filter((c) => c.name === "x").map((c) => c.type)).toEqual(["SMALLINT", "INTEGER"]);
    expect((await read("p", first.snapshot_id)).map((r: any) => [r.x, r.tx])).toEqual([[10, "SMALLINT"]]);
    expect((await read("p", second.snapshot_id)).map((r: any) => [r.x, r.tx])).toEqual([
      [10, "INTEGER"],
      [70000, "INTEGER"],
    ]);
  });
});
