/**
 * Where a write's new files go before its commit (I/O). For a local table folder the files
 * are written in place; for an `s3://` one DuckDB writes them into a local staging folder,
 * they are uploaded under the same relative paths, and the staging folder is removed when
 * the write ends (a killed writer's folder is removed by the next write: `staging-owner.ts`).
 * Files a failed write uploaded are removed again. Files of the table that a
 * write reads (a merge's key lookups) come from the object store's local cache.
 */
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LakeError } from "./errors.js";
import { fsyncPaths } from "./fsync.js";
import type { WrittenFile } from "./file-writer.js";
import { isRemotePath, joinPath } from "./paths.js";
import type { RemoteFiles } from "./remote-files.js";
import { makeStagingDir } from "./staging-owner.js";

/** A write's place for new files. */
export interface FileStaging {
  /** The local folder DuckDB writes the table's new files into (relative paths as in the table). */
  readonly dir: string;
  /**
   * Publishing takes milliseconds (a local flush), so the catalog transaction may run beside it;
   * false for uploads, which may take long and must not hold the catalog's write lock meanwhile.
   */
  readonly quick: boolean;
  /**
   * `dir`, the folder a file is about to be written into, was just made (when missing): a local
   * staging starts flushing the folders above it now, while the file is written. No-op for uploads.
   */
  folderMade(dir: string): void;
  /**
   * These files are complete and will not change before the commit: a local staging starts
   * flushing them and their folders now, so the flush overlaps what the write does before its
   * commit; {@link publish} then waits for these flushes instead of starting them. No-op for uploads.
   */
  written(paths: readonly string[]): void;
  /** Make written files visible at their table paths (flush or upload them); before the commit. */
  publish(files: readonly WrittenFile[]): Promise<void>;
  /** Remove every file of this write (local and published). */
  discard(files: readonly WrittenFile[]): Promise<void>;
  /** A local path DuckDB can read for a file of the table (`path` as resolved from the catalog). */
  local(path: string): Promise<string>;
  /** The table path a written file has once published (what a delete file names). */
  tablePath(file: WrittenFile): string;
  /** Remove the staging folder (after the commit, or after a failure). */
  close(): void;
}

/** Add `dir` and every folder above it up to `top` (inclusive) to `folders`. */
function addFoldersUpTo(folders: Set<string>, dir: string, top: string): void {
  for (; dir.startsWith(top) && !folders.has(dir); dir = dirname(dir)) {
    folders.add(dir);
    if (dir === top) break;
  }
}

/** Wait for every promise; @throws the first rejection, after all have settled. */
async function allSettledOrThrow(flushes: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(flushes);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

const ignore = (): undefined => undefined;

/**
 * Local flushes of a write into `tableDir`: each file and every folder from its own up to the
 * table folder's parent, all at once (a write may make nested hive folders `a=1/b=x/` and, on a
 * table's first write, the table folder itself, and each new entry must reach the disk before
 * the catalog names the file). A folder's parents may flush as soon as it is made; a file and
 * its own folder once the file is complete. `flushPaths` flushes a set of paths at once
 * (the tests pass one that also records them).
 */
export function localFlushes(
  tableDir: string,
  flushPaths: (paths: readonly string[]) => Promise<void> = fsyncPaths,
): Pick<FileStaging, "folderMade" | "written"> & { publish(paths: readonly string[]): Promise<void> } {
  const top = dirname(resolve(tableDir));
  /** Flushes of the folders above a folder made before its file was written, by folder. */
  const above = new Map<string, Promise<void>>();
  /** Flushes started for complete files, by path. */
  const started = new Map<string, Promise<void>>();
  /** Flush `paths` (complete files) and their folders up to `top`, reusing `above` where started. */
  const flush = (paths: readonly string[]): Promise<void> => {
    const folders = new Set<string>();
    const waits: Array<Promise<void>> = [];
    for (const path of paths) {
      const dir = dirname(resolve(path));
      const parents = above.get(dir);
      if (parents) {
        waits.push(parents);
        folders.add(dir);
      } else addFoldersUpTo(folders, dir, top);
    }
    return allSettledOrThrow([...waits, flushPaths([...paths, ...folders])]);
  };
  return {
    folderMade(dir: string): void {
      const d = resolve(dir);
      if (above.has(d) || d === top || !d.startsWith(top)) return;
      const folders = new Set<string>();
      addFoldersUpTo(folders, dirname(d), top);
      const p = flushPaths([...folders]);
      // awaited by publish (which throws it); never an unhandled rejection meanwhile
      p.catch(ignore);
      above.set(d, p);
    },
    written(paths: readonly string[]): void {
      const p = flush(paths);
      p.catch(ignore);
      for (const path of paths) started.set(path, p);
    },
    publish(paths: readonly string[]): Promise<void> {
      const waits = new Set<Promise<void>>();
      const rest: string[] = [];
      for (const path of paths) {
        const p = started.get(path);
        if (p) waits.add(p);
        else rest.push(path);
      }
      if (rest.length) waits.add(flush(rest));
      return allSettledOrThrow([...waits]);
    },
  };
}

/** The staging of a write into `tableDir`. @throws LakeError for an `s3://` folder without object store access */
export function stageFiles(tableDir: string, remote: RemoteFiles | undefined): FileStaging {
  if (!isRemotePath(tableDir)) {
    // DuckDB's COPY does not fsync: the files (and the folders naming them) reach the disk
    // here, before the catalog commit (synchronous=FULL) can name them.
    const flushes = localFlushes(tableDir);
    return {
      dir: tableDir,
      quick: true,
      folderMade: flushes.folderMade,
      written: flushes.written,
      publish: (files) => flushes.publish(files.map((f) => f.path)),
      discard: async (files) => {
        for (const f of files) rmSync(f.path, { force: true });
      },
      local: async (path) => path,
      tablePath: (file) => file.path,
      close: () => undefined,
    };
  }
  if (!remote)
    throw new LakeError(
      "LAKE_FEATURE_UNSUPPORTED",
      `the lake's data path is on an object store (${tableDir}) but no object store access was given; open the lake with its S3 settings (sluice.json assets.s3)`,
    );
  // marked with this process (pid and start time); folders of writers that died are swept first
  const dir = makeStagingDir();
  const urlOf = (file: WrittenFile) => joinPath(tableDir, file.relPath);
  const published: string[] = [];
  return {
    dir,
    quick: false,
    // uploads start at publish, after every file is written (and audited)
    folderMade: () => undefined,
    written: () => undefined,
    async publish(files) {
      for (const f of files) {
        await remote.upload(f.path, urlOf(f));
        published.push(urlOf(f));
      }
    },
    async discard(files) {
      for (const f of files) rmSync(f.path, { force: true });
      for (const url of published.splice(0)) await remote.remove(url);
    },
    local: (path) => (isRemotePath(path) ? remote.fetch(path) : Promise.resolve(path)),
    tablePath: urlOf,
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
