/** Listing a local folder's files (I/O). */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Every file below `dir` whose name `keep` accepts (all by default), depth first; a folder that
 * is missing or unreadable lists nothing (a sweep or a prune then has nothing to do there).
 */
export function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(folder, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && keep(e.name)) out.push(full);
    }
  };
  walk(dir);
  return out;
}
