/**
 * Local flushes of a write's files on a real folder: each new entry's folder is flushed after
 * the entry exists, folders as soon as they are made, a file and its folder once it is written,
 * and publish waits for (and fails with) the flushes started early. The flushes are the real
 * fsyncs; the function given to the staging records what each flush covered.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localFlushes } from "./file-staging.js";
import { fsyncPaths } from "./fsync.js";

let root: string;
let flushed: string[][];
const recording = async (paths: readonly string[]) => {
  flushed.push([...paths].sort());
  await fsyncPaths(paths);
};
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "sluice-flush-"));
  flushed = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("localFlushes", () => {
  it("flushes a made folder's parents at once, then the written file and its folder, and publish waits for both", async () => {
    const top = join(root, "main");
    const table = join(top, "t");
    const dir = join(table, "day=2026-01-05");
    const file = join(dir, "f.parquet");
    const flushes = localFlushes(`${table}/`, recording);
    mkdirSync(dir, { recursive: true });
    flushes.folderMade(dir);
    // the new folder's entry is in the table folder, the table folder's in the schema folder
    expect(flushed).toEqual([[top, table]]);
    writeFileSync(file, "x");
    flushes.written([file]);
    expect(flushed).toEqual([[top, table], [dir, file].sort()]);
    await flushes.publish([file]);
    // nothing flushed twice
    expect(flushed).toHaveLength(2);
  });

  it("flushes a file nobody announced, and every folder up to the table's parent, at publish", async () => {
    const table = join(root, "main", "t");
    const file = join(table, "a=1", "b=x", "f.parquet");
    mkdirSync(join(table, "a=1", "b=x"), { recursive: true });
    writeFileSync(file, "x");
    const flushes = localFlushes(table, recording);
    await flushes.publish([file]);
    expect(flushed).toEqual([[file, join(table, "a=1", "b=x"), join(table, "a=1"), table, join(root, "main")].sort()]);
  });

  it("flushes the whole chain of a file written into a folder made without notice (DuckDB's PARTITION_BY)", async () => {
    const table = join(root, "main", "t");
    const flushes = localFlushes(table, recording);
    mkdirSync(join(table, "day=1"), { recursive: true });
    flushes.folderMade(join(table, "day=1"));
    mkdirSync(join(table, "day=2"), { recursive: true });
    const files = [join(table, "day=1", "f.parquet"), join(table, "day=2", "g.parquet")];
    for (const f of files) writeFileSync(f, "x");
    flushes.written(files);
    // day=2 was made after the early flush of the table folder: the table folder is flushed again
    expect(flushed[1]).toEqual(
      [...files, join(table, "day=1"), join(table, "day=2"), table, join(root, "main")].sort(),
    );
    await flushes.publish(files);
    expect(flushed).toHaveLength(2);
  });

  it("fails publish with the early flush's error (a written file gone before its flush)", async () => {
    const table = join(root, "main", "t");
    const flushes = localFlushes(table);
    mkdirSync(table, { recursive: true });
    flushes.folderMade(table);
    flushes.written([join(table, "gone.parquet")]);
    await expect(flushes.publish([join(table, "gone.parquet")])).rejects.toMatchObject({ code: "ENOENT" });
  });
});
