/**
 * Resolving user-supplied relative paths (S3 keys, volume paths) inside a storage root:
 * no absolute paths, no `..`, no NUL or backslash, and no symlink that leads outside.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { AssetPathError } from "./errors.js";

/**
 * Check a `/`-separated relative key and return its segments.
 * @throws AssetPathError for an empty key, a leading `/`, `.`/`..`/empty segments, NUL or backslash
 */
function checkRelativeKey(what: string, key: string): string[] {
  if (typeof key !== "string" || key === "") throw new AssetPathError(what, String(key), "it is empty");
  if (key.includes("\0") || key.includes("\\")) throw new AssetPathError(what, key, "it contains a NUL or a backslash");
  if (key.startsWith("/") || isAbsolute(key)) throw new AssetPathError(what, key, "it is absolute");
  const segments = key.replace(/\/+$/, "").split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new AssetPathError(what, key, "it has an empty, `.` or `..` segment");
  }
  return segments;
}

/** The nearest existing ancestor of `path` (itself if it exists). */
function existingAncestor(path: string): string {
  let cur = path;
  while (!existsSync(cur)) {
    const parent = dirname(cur);
    if (parent === cur) return cur;
    cur = parent;
  }
  return cur;
}

/**
 * The absolute path of `key` inside `base`. The base need not exist yet; when part of the
 * path exists, its real path (symlinks resolved) must stay inside the base's real path.
 * @throws AssetPathError when the key is malformed or escapes the base
 */
export function resolveInside(base: string, key: string, what = "path"): string {
  const segments = checkRelativeKey(what, key);
  const root = resolve(base);
  const full = join(root, ...segments);
  if (full !== root && !full.startsWith(root + sep))
    throw new AssetPathError(what, key, "it leaves its storage folder");
  const realRoot = realpathSync(existingAncestor(root));
  const anchor = existingAncestor(full);
  const realAnchor = realpathSync(anchor);
  const rootForCompare = existsSync(root) ? realpathSync(root) : realRoot;
  if (anchor.length >= root.length && realAnchor !== rootForCompare && !realAnchor.startsWith(rootForCompare + sep)) {
    throw new AssetPathError(what, key, "a symbolic link inside the storage folder points outside it");
  }
  return full;
}

/** Validate an S3 key (the part after `s3://`). @throws AssetPathError */
export function checkObjectKey(key: string): string {
  checkRelativeKey("S3 key", key);
  return key;
}
