/**
 * Resolving DuckLake paths (pure). A data file's path is relative to its table's path,
 * the table's to its schema's, the schema's to the lake's `data_path`; a relative
 * `data_path` is taken relative to the folder of the catalog file.
 */
import { isAbsolute, join } from "node:path";

/** Whether a path is a URL (`s3://…`, `file://…`). */
export function isUrl(path: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path);
}

/** Whether a path is on an object store (`s3://…`), which DuckDB cannot open here. */
export function isRemotePath(path: string): boolean {
  return path.startsWith("s3://");
}

/** Join a base folder (ending in `/` or not) and a relative part. */
export function joinPath(base: string, part: string): string {
  if (isUrl(base)) return `${base.replace(/\/+$/, "")}/${part.replace(/^\/+/, "")}`;
  return join(base, part);
}

/** The absolute data folder of a lake from its `data_path` and the catalog's folder. */
export function resolveDataPath(dataPath: string, catalogDir: string): string {
  if (isUrl(dataPath) || isAbsolute(dataPath)) return dataPath;
  return join(catalogDir, dataPath);
}

/** A path stored with `path_is_relative`: joined to `base` when relative, as is otherwise. */
export function resolveRelative(base: string, path: string | null, relative: boolean): string {
  if (path === null || path === "") return base;
  return relative ? joinPath(base, path) : path;
}
