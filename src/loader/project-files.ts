/**
 * The one walk over a project folder that every loader shares (TypeScript modules, pipeline
 * members, Python workflows): relative `/`-separated paths, sorted, never entering dot folders,
 * dependencies or build output.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Folder names never searched: dependencies, build output, Python caches. */
export const SKIP_DIRS: ReadonlySet<string> = new Set(["node_modules", "dist", "build", "coverage", "__pycache__"]);

/**
 * Files under `root` (or under each of `tops` inside it) whose name `accept` takes, relative to
 * `root`, sorted. A folder that cannot be read is skipped.
 */
export function listProjectFiles(
  root: string,
  accept: (name: string) => boolean,
  tops: readonly string[] = ["."],
): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(full);
      } else if (e.isFile() && accept(e.name)) out.push(relative(root, full).split(sep).join("/"));
    }
  };
  for (const top of tops) walk(join(root, top));
  return out.sort();
}
