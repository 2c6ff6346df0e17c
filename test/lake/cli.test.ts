/**
 * `sluice lake snapshots|tables|schema|rollback|sweep` as the real binary (built `dist/`) on a
 * project whose lake was written by Sluice's writer.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { openLake } from "../../src/lake/reader.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { spawnSluice } from "../helpers/processes.js";

let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sluice-lake-cli-"));
  const lake = await openLakeForWrite(join(root, ".sluice", "lakes", "main.sqlite"), {
    dataPath: join(root, ".sluice", "lakes", "main"),
  });
  try {
    await withDuckDb([], async (conn) => {
      await lake.write(conn, {
        table: "orders",
        mode: "append",
        source: "SELECT * FROM (VALUES (1::BIGINT, 'a'), (2, 'b')) v(id, label)",
        commitMessage: "first",
      });
      await lake.write(conn, { table: "orders", mode: "replace", source: "SELECT 3::BIGINT AS id, 7 AS qty" });
    });
  } finally {
    await lake.close();
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function sluice(args: string[]): Promise<{ code: number | string; out: string }> {
  const p = spawnSluice(["lake", ...args, "--dir", root], root);
  const code = await p.exited;
  return { code, out: p.output() };
}

describe("sluice lake", () => {
  it("lists snapshots, tables and schema (with history), as text and JSON", async () => {
    const snaps = await sluice(["snapshots", "main", "--json"]);
    expect(snaps.code, snaps.out).toBe(0);
    expect(
      JSON.parse(snaps.out).map((s: { snapshot_id: number; changes: unknown; message: string | null }) => [
        s.snapshot_id,
        s.changes,
        s.message,
      ]),
    ).toEqual([
      [0, { schemas_created: ["main"] }, null],
      [1, { tables_created: ["main.orders"], tables_inserted_into: ["1"] }, "first"],
      [2, { tables_altered: ["1"], tables_inserted_into: ["1"], tables_deleted_from: ["1"] }, null],
    ]);
    const tables = await sluice(["tables", "main", "--at", "1"]);
    expect(tables.code, tables.out).toBe(0);
    expect(tables.out).toMatch(/main\.orders\s+1\s+2\s+1/);
    const schema = await sluice(["schema", "main/orders", "--history", "--json"]);
    expect(schema.code, schema.out).toBe(0);
    expect(JSON.parse(schema.out)).toEqual([
      { column_id: 1, name: "id", type: "BIGINT", begin_snapshot: 1, end_snapshot: null },
      { column_id: 2, name: "label", type: "VARCHAR", begin_snapshot: 1, end_snapshot: 2 },
      { column_id: 3, name: "qty", type: "INTEGER", begin_snapshot: 2, end_snapshot: null },
    ]);
    const now = await sluice(["schema", "main/orders"]);
    expect(now.out).toMatch(/1\s+id\s+BIGINT/);
    expect(now.out).toMatch(/3\s+qty\s+INTEGER/);
  });

  it("rolls a table back as a new snapshot", async () => {
    const r = await sluice(["rollback", "main/orders", "--to", "1"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("rolled main/orders back to snapshot 1: new snapshot 3");
    const lake = await openLake(join(root, ".sluice", "lakes", "main.sqlite"));
    try {
      expect(await lake.query("orders", { kind: "latest" }, "SELECT * FROM {table} ORDER BY id")).toEqual([
        { id: 1, label: "a" },
        { id: 2, label: "b" },
      ]);
    } finally {
      await lake.close();
    }
  });

  it("sweeps data files no snapshot names once they are older than --older-than, keeping every table file", async () => {
    const table = join(root, ".sluice", "lakes", "main", "main", "orders");
    const named = readdirSync(table).sort();
    const orphan = (name: string, ageMs: number) => {
      const path = join(table, name);
      writeFileSync(path, "not referenced");
      const t = (Date.now() - ageMs) / 1000;
      utimesSync(path, t, t);
      return path;
    };
    const old = orphan("ducklake-orphan-old.parquet", 2 * 60 * 60 * 1000);
    const young = orphan("ducklake-orphan-young.parquet", 0);
    const other = orphan("notes.parquet", 2 * 60 * 60 * 1000); // not named like the lake's files: never removed
    const first = await sluice(["sweep", "main", "--json"]);
    expect(first.code, first.out).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ lake: "main", orphans: [old] });
    expect([old, young, other].map((f) => existsSync(f))).toEqual([false, true, true]);
    const second = await sluice(["sweep", "main", "--older-than", "0"]);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain("removed 1 orphan file(s) of lake main older than 0");
    expect(readdirSync(table).sort()).toEqual([...named, "notes.parquet"].sort());
    const lake = await openLake(join(root, ".sluice", "lakes", "main.sqlite"));
    try {
      // every snapshot still reads (its files are all there): 2 rows, then the replace's 1, then the rollback's 2
      const counts = [];
      for (let s = 1; s <= 3; s++)
        counts.push(
          await lake.query("orders", { kind: "version", snapshotId: s }, "SELECT count(*) AS n FROM {table}"),
        );
      expect(counts).toEqual([[{ n: 2 }], [{ n: 1 }], [{ n: 2 }]]);
    } finally {
      await lake.close();
    }
    const bad = await sluice(["sweep", "main", "--older-than", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('--older-than "soon" is not a duration');
  });

  it("fails with one clear line and a non-zero exit on a missing lake, table or snapshot", async () => {
    const missing = await sluice(["snapshots", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(
      /^sluice: lake nope does not exist in .*materialize a table into ducklake:\/\/nope\/<table> first\n$/,
    );
    expect(missing.out).toContain("lakes there: main");
    expect(existsSync(join(root, ".sluice", "lakes", "nope.sqlite"))).toBe(false); // nothing created
    const noTable = await sluice(["schema", "main"]);
    expect(noTable.code).toBe(1);
    expect(noTable.out).toContain('"main" names a lake, not a table');
    const badSnap = await sluice(["rollback", "main/orders", "--to", "42"]);
    expect(badSnap.code).toBe(1);
    expect(badSnap.out).toContain("no snapshot with version 42");
  });
});
