/**
 * A writer process SIGKILLed between writing its Parquet files and committing them: the
 * lake stays at its previous snapshot (nothing of the slice is visible), the files are on
 * disk unreferenced, and the orphan sweep removes exactly them. Runs the built `dist/`.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { sweepOrphans } from "../../src/lake/orphans.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { REPO } from "../helpers/project.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a writer killed before its commit", () => {
  it("publishes nothing and leaves only orphans, which the sweep removes", async () => {
    if (!existsSync(join(REPO, "dist", "lake", "writer.js")))
      throw new Error("dist/ is missing: run `npm run build` (npm test does it)");
    dir = mkdtempSync(join(tmpdir(), "sluice-lake-crash-"));
    const catalog = join(dir, "main.sqlite");
    const data = join(dir, "data");
    const lake = await openLakeForWrite(catalog, { dataPath: data });
    try {
      await withDuckDb([], (conn) => lake.write(conn, { table: "t", mode: "replace", source: "SELECT 42 AS id" }));
      const child = spawn(
        process.execPath,
        [join(REPO, "test", "lake", "fixtures", "write-and-hang.mjs"), REPO, catalog, data],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const exited = new Promise<string | number>((r) => child.on("exit", (code, signal) => r(signal ?? code ?? -1)));
      const files = await new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no WRITTEN line in 20 s; output:\n${out}`)), 20_000);
        child.stdout.on("data", () => {
          const m = /WRITTEN (\[.*\])/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(JSON.parse(m[1]!) as string[]);
          }
        });
      });
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");

      expect(files).toHaveLength(1);
      expect(existsSync(files[0]!)).toBe(true);
      expect((await lake.reader.snapshot()).snapshotId).toBe(1);
      expect(await lake.reader.query("t", { kind: "latest" }, "SELECT * FROM {table}")).toEqual([{ id: 42 }]);

      expect(await sweepOrphans(lake.reader, { graceMs: 60_000 })).toEqual([]);
      expect(await sweepOrphans(lake.reader, { graceMs: 0, now: Date.now() + 1000 })).toEqual(files);
      expect(existsSync(files[0]!)).toBe(false);
      const next = await withDuckDb([], (conn) =>
        lake.write(conn, { table: "t", mode: "append", source: "SELECT 43 AS id" }),
      );
      expect(next.snapshotId).toBe(2);
      expect(await lake.reader.query("t", { kind: "latest" }, "SELECT * FROM {table} ORDER BY id")).toEqual([
        { id: 42 },
        { id: 43 },
      ]);
    } finally {
      await lake.close();
    }
  });
});
