/**
 * Writes a release's files into a folder (a release worker's code tree, `sluice pull`), from the
 * texts stored by content hash. Files of the previous tree that the release no longer has are
 * deleted; unchanged files are left alone.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InvalidReleaseError, type ReleaseManifest, sourceBlobKey } from "../core/release.js";
import type { Store } from "../store/types.js";
import { contentHash } from "./files.js";

/** The path of `rel` inside `dir`. @throws InvalidReleaseError when it would land outside */
function inside(dir: string, rel: string): string {
  const full = resolve(dir, rel);
  const back = relative(resolve(dir), full);
  if (back.startsWith("..") || back.split(sep).includes("..") || resolve(dir) === full)
    throw new InvalidReleaseError(`release file ${JSON.stringify(rel)} would be written outside ${dir}`);
  return full;
}

/**
 * Writes every file of `manifest` under `dir` (atomically per file) and deletes the files of
 * `previous` that it does not list. Returns the paths written.
 * @throws InvalidReleaseError when a file's text is not stored or a path escapes `dir`
 */
export async function materializeRelease(
  store: Store,
  manifest: ReleaseManifest,
  dir: string,
  previous: ReleaseManifest | null = null,
): Promise<string[]> {
  const written: string[] = [];
  const texts = await Promise.all(
    manifest.files.map(async (f) => {
      const text = await store.getBundle(sourceBlobKey(f.hash));
      if (text === null)
        throw new InvalidReleaseError(`the text of ${f.path} (content ${f.hash}) is not in the database: deploy again`);
      return text;
    }),
  );
  manifest.files.forEach((f, i) => {
    const full = inside(dir, f.path);
    if (existsSync(full) && contentHash(readFileSync(full, "utf8")) === f.hash) return;
    mkdirSync(dirname(full), { recursive: true });
    const tmp = `${full}.${process.pid}.tmp`;
    writeFileSync(tmp, texts[i]!);
    renameSync(tmp, full);
    written.push(f.path);
  });
  const keep = new Set(manifest.files.map((f) => f.path));
  for (const f of previous?.files ?? []) if (!keep.has(f.path)) rmSync(inside(dir, f.path), { force: true });
  return written;
}

/**
 * The files of `manifest` that writing it into `dir` would overwrite although they hold local
 * work: files present in `dir` whose text differs both from the release's and from what the
 * last pull wrote (`lock`, path → content hash; null when `dir` has no lock file). Sorted.
 * @throws InvalidReleaseError when a path escapes `dir`
 */
export function overwrittenLocalChanges(
  manifest: ReleaseManifest,
  dir: string,
  lock: Readonly<Record<string, string>> | null,
): string[] {
  const changed: string[] = [];
  for (const f of manifest.files) {
    const full = inside(dir, f.path);
    if (!existsSync(full)) continue;
    const local = contentHash(readFileSync(full, "utf8"));
    if (local !== f.hash && local !== lock?.[f.path]) changed.push(f.path);
  }
  return changed.sort();
}

/** The folder where a release worker started in `root` keeps the current release's files. */
export function releaseTree(root: string): string {
  return join(root, ".sluice", "release");
}
