/**
 * Two writer processes (the built `dist/`) replacing different partitions of one table of one
 * lake at the same time, the table created by whichever commits first: every write commits
 * as its own snapshot and the table ends with each partition's last slice.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openLake } from "../../src/lake/reader.js";
import { REPO } from "../helpers/project.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function writer(
  catalog: string,
  data: string,
  name: string,
  count: number,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    [join(REPO, "test", "lake", "fixtures", "write-partitions.mjs"), REPO, catalog, data, name, String(count)],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe("concurrent writer processes", () => {
  it("both commit every write of their own partition", async () => {
    if (!existsSync(join(REPO, "dist", "lake", "writer.js")))
      throw new Error("dist/ is missing: run `npm run build` (npm test does it)");
    dir = mkdtempSync(join(tmpdir(), "sluice-lake-procs-"));
    const catalog = join(dir, "main.sqlite");
    const data = join(dir, "data");
    const [a, b] = await Promise.all([writer(catalog, data, "a", 6), writer(catalog, data, "b", 6)]);
    expect(a, a.out).toMatchObject({ code: 0 });
    expect(b, b.out).toMatchObject({ code: 0 });
    const lake = await openLake(catalog);
    try {
      const snaps = await lake.snapshots();
      expect(snaps.map((s) => s.snapshotId)).toEqual(Array.from({ length: 13 }, (_, i) => i));
      expect(
        await lake.query(
          "e",
          { kind: "latest" },
          "SELECT p, count(*) AS n, min(round) AS lo, max(round) AS hi FROM {table} GROUP BY p ORDER BY p",
        ),
      ).toEqual([
        { p: "a", n: 100, lo: 6, hi: 6 },
        { p: "b", n: 100, lo: 6, hi: 6 },
      ]);
      expect(await lake.db.all("SELECT count(*) AS n FROM ducklake_data_file WHERE end_snapshot IS NULL")).toEqual([
        { n: 2 },
      ]);
    } finally {
      await lake.close();
    }
  });
});
