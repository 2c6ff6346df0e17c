/**
 * The `__mod/` companion modules of a Python workflow or script (seed 000's "script
 * modules"): the `.py` files of `f/x/flow__mod/` beside `f/x/flow.py`, or of the folder
 * holding a folder-layout entry `f/x/flow__mod/script.py` (without the entry itself). They
 * are part of the file's code version, so a run keeps importing the module code it started
 * with. The same rule as `sdk-python/wmill/_modules.py`, which imports them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";

/** The companion folder of `file` (project-relative), or null. */
function companionDir(root: string, file: string): string | null {
  const abs = join(root, file);
  const folder = dirname(abs);
  if (basename(folder).endsWith("__mod")) return folder;
  const own = abs.replace(/\.py$/, "") + "__mod";
  return existsSync(own) && statSync(own).isDirectory() ? own : null;
}

/** `{path in the folder: source}` of `file`'s companion modules, sorted by path; undefined when none. */
export function companionSources(root: string, file: string): Record<string, string> | undefined {
  const dir = companionDir(root, file);
  if (!dir) return undefined;
  const me = join(root, file);
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== "__pycache__" && !e.name.startsWith(".")) walk(p);
      } else if (e.name.endsWith(".py") && p !== me) found.push(p);
    }
  };
  walk(dir);
  if (found.length === 0) return undefined;
  return Object.fromEntries(found.map((p) => [relative(dir, p).split(sep).join("/"), readFileSync(p, "utf8")]));
}
