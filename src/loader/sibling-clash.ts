/**
 * Two script files of a project that would run under one name: `f/p/x.ts`, `f/p/x.py` and
 * `f/p/x.sql` are all the runnable `f/p/x`. Neither may run (which one would is an accident of
 * load order).
 */
import { existsSync } from "node:fs";
import { extname, join } from "node:path";
import { DuplicateWorkflowError } from "../sdk/errors.js";
import { SCRIPT_FOLDERS } from "./project-marker.js";

/** Extensions of script files whose runnable is named by their path without the extension. */
const SCRIPT_EXTENSIONS = [".ts", ".js", ".py"];
/**
 * DuckDB SQL and Bash files are runnable scripts under `f/` and `u/` only
 * (`pipeline/runtime/plain-scripts.ts`); elsewhere one beside `x.ts` is just a file.
 */
const FOLDER_SCRIPT_EXTENSIONS = [".sql", ".sh"];

/**
 * The other file of `root` that would run as `name` beside `file` (relative to `root`), or
 * null: only a runnable named by `file`'s own path can clash this way.
 */
export function clashingSibling(root: string, file: string, name: string): string | null {
  const ext = extname(file);
  const stem = file.slice(0, file.length - ext.length);
  if (stem !== name) return null;
  const inScriptFolder = SCRIPT_FOLDERS.includes(stem.split("/")[0]!);
  const others = inScriptFolder ? [...SCRIPT_EXTENSIONS, ...FOLDER_SCRIPT_EXTENSIONS] : SCRIPT_EXTENSIONS;
  for (const other of others) if (other !== ext && existsSync(join(root, stem + other))) return stem + other;
  return null;
}

/**
 * `errors` with one {@link DuplicateWorkflowError} per workflow name: both files of a clash
 * refuse the name (`x.ts` by the TypeScript loader, `x.py` by the Python one), and a load
 * report tells the clash once, not once per file.
 */
export function onceEachClash<E extends { error: Error }>(errors: readonly E[]): E[] {
  const told = new Set<string>();
  return errors.filter(({ error }) => {
    if (!(error instanceof DuplicateWorkflowError)) return true;
    if (told.has(error.workflow)) return false;
    told.add(error.workflow);
    return true;
  });
}
