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
  /** Make written files visible at their table paths (upload them); before the commit. */
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

/**
 * Flush files and every folder from theirs up to the table folder's parent, all at once: a
 * write may make nested hive folders (`a=1/b=x/`) and, on a table's first write, the table
 * folder itself, and each new entry must reach the disk before the catalog names the file.
 */
function syncToDisk(paths: readonly string[], tableDir: string): Promise<void> {
  const top = dirname(resolve(tableDir));
  const folders = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(resolve(path)); dir.startsWith(top) && !folders.has(dir); dir = dirname(dir)) {
      folders.add(dir);
      if (dir === top) break;
    }
  }
  return fsyncPaths([...paths, ...folders]);
}

/** The staging of a write into `tableDir`. @throws LakeError for an `s3://` folder without object store access */
export function stageFiles(tableDir: string, remote: RemoteFiles | undefined): FileStaging {
  if (!isRemotePath(tableDir))
    return {
      dir: tableDir,
      quick: true,
      // DuckDB's COPY does not fsync: the files (and the folders naming them) reach the disk
      // here, before the catalog commit (synchronous=FULL) can name them.
      publish: async (files) =>
        syncToDisk(
          files.map((f) => f.path),
          tableDir,
        ),
      discard: async (files) => {
        for (const f of files) rmSync(f.path, { force: true });
      },
      local: async (path) => path,
      tablePath: (file) => file.path,
      close: () => undefined,
    };
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
