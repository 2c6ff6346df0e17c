import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { listProjectFiles, SKIP_DIRS } from "./project-files.js";

/** File extensions Sluice loads as modules. */
const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** True for a file Sluice may load as a module (not a test, not a declaration). */
export function isModuleFile(name: string): boolean {
  if (name.endsWith(".d.ts") || /\.(test|spec)\.[mc]?[jt]s$/.test(name)) return false;
  return MODULE_EXTENSIONS.some((ext) => name.endsWith(ext));
}

/**
 * Lists module files under `root` (relative paths, sorted), skipping dot folders,
 * `node_modules` and build output.
 */
function listModuleFiles(root: string): string[] {
  return listProjectFiles(root, isModuleFile);
}

/** Source that defines something runnable: a `defineWorkflow`, or a `main` export (workflow as code or script). */
function looksRunnable(source: string): boolean {
  return (
    /\bdefineWorkflow\s*[<(]/.test(source) ||
    /\bexport\s+(?:const|let|var)\s+main\b/.test(source) ||
    /\bexport\s+(?:async\s+)?function\s*\*?\s*main\b/.test(source) ||
    /\bexport\s*\{[^}]*\bmain\b[^}]*\}/.test(source)
  );
}

/** Largest file looked at when discovering modules. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * Runnable modules of a project: every file inside a `workflows/` folder (Tako's
 * `<app_root>/workflows/`, also `src/workflows/`), and any other module file that
 * defines a workflow or exports `main` (workflows as code and scripts, named by path).
 */
export function discoverWorkflowFiles(root: string): string[] {
  return listModuleFiles(root).filter((f) => isRunnableFile(root, f));
}

/** Whether one module file (project-relative, `/`-separated) is runnable by the rules of {@link discoverWorkflowFiles}. */
export function isRunnableFile(root: string, file: string): boolean {
  const dirs = file.split("/").slice(0, -1);
  if (!isModuleFile(file) || dirs.some((d) => d.startsWith(".") || SKIP_DIRS.has(d))) return false;
  if (dirs.includes("workflows")) return true;
  const full = join(root, file);
  try {
    return statSync(full).size <= MAX_SOURCE_BYTES && looksRunnable(readFileSync(full, "utf8"));
  } catch {
    return false;
  }
}
