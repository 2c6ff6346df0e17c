/**
 * The automatic orphan sweep: `sluice dev` (the binary) sweeps each lake of its project by
 * itself, once per `SLUICE_LAKE_SWEEP_EVERY`, removing only unreferenced lake files older than
 * `SLUICE_LAKE_SWEEP_OLDER_THAN` (set low here; the defaults are an hour and a day).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { openLake } from "../../src/lake/reader.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

let root: string;
let table: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sluice-lake-autosweep-"));
  // A project with lakes and no workflows: `sluice dev` runs only on a Sluice project.
  writeFileSync(join(root, "sluice.json"), "{}");
  const lake = await openLakeForWrite(join(root, ".sluice", "lakes", "main.sqlite"), {
    dataPath: join(root, ".sluice", "lakes", "main"),
  });
  try {
    await withDuckDb([], (conn) =>
      lake.write(conn, { table: "t", mode: "append", source: "SELECT * FROM range(3) r(id)" }),
    );
  } finally {
    await lake.close();
  }
  table = join(root, ".sluice", "lakes", "main", "main", "t");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function orphan(name: string, ageMs: number): string {
  const path = join(table, name);
  if (!existsSync(path)) writeFileSync(path, "left by a killed writer");
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
  return path;
}

describe("automatic lake sweep", () => {
  it("sluice dev sweeps old orphans of each lake on its interval and leaves young ones and table files", async () => {
    const files = readdirSync(table);
    const old = orphan("ducklake-old.parquet", 5 * 60_000);
    const young = orphan("ducklake-young.parquet", 0);
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {
      SLUICE_LAKE_SWEEP_EVERY: "1s",
      SLUICE_LAKE_SWEEP_OLDER_THAN: "2m",
    });
    try {
      await dev.waitFor(/lake sweep: removed 1 orphan file\(s\) of lake main older than 120s: .*ducklake-old/, 30_000);
      expect([existsSync(old), existsSync(young)]).toEqual([false, true]);
      orphan("ducklake-young.parquet", 5 * 60_000); // now old enough: the next pass, a second later, takes it
      await eventually(() => !existsSync(young), 15_000);
      expect(readdirSync(table).sort()).toEqual([...files].sort());
    } finally {
      dev.proc.kill("SIGTERM");
      await dev.exited;
    }
    const lake = await openLake(join(root, ".sluice", "lakes", "main.sqlite"));
    try {
      expect(await lake.query("t", { kind: "latest" }, "SELECT count(*) AS n FROM {table}")).toEqual([{ n: 3 }]);
    } finally {
      await lake.close();
    }
  });

  it("refuses a bad sweep setting at start", async () => {
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, { SLUICE_LAKE_SWEEP_EVERY: "hourly" });
    expect(await dev.exited).toBe(1);
    expect(dev.output()).toContain('SLUICE_LAKE_SWEEP_EVERY "hourly" is not a duration');
  });
});
