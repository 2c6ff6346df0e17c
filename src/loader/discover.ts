import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { listProjectFiles, SKIP_DIRS } from "./project-files.js";
import { isSluiceProject, SCRIPT_FOLDERS, WORKFLOW_FOLDERS } from "./project-marker.js";

/** File extensions Sluice loads as modules. */
const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** True for a file Sluice may load as a module (not a test, not a declaration). */
export function isModuleFile(name: string): boolean {
  if (name.endsWith(".d.ts") || /\.(test|spec)\.[mc]?[jt]s$/.test(name)) return false;
  return MODULE_EXTENSIONS.some((ext) => name.endsWith(ext));
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

/** Module files directly in `root` (a one-file project: `sluice.json` beside `hello.ts`). */
function topLevelModules(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isFile() && isModuleFile(e.name))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * Runnable modules of a project (relative paths, sorted): every module file under `workflows/`
 * or `src/workflows/` (Tako's `<app_root>/workflows/`), and the module files under `f/` and `u/`
 * (Windmill script paths) or directly in the project folder that define a workflow or export
 * `main` (workflows as code and scripts, named by path). Nothing anywhere else is imported, and
 * nothing at all from a folder that is not a Sluice project (`project-marker.ts`).
 */
export function discoverWorkflowFiles(root: string): string[] {
  if (!isSluiceProject(root)) return [];
  const candidates = [
    ...topLevelModules(root),
    ...listProjectFiles(root, isModuleFile, [...WORKFLOW_FOLDERS, ...SCRIPT_FOLDERS]),
  ];
  return [...new Set(candidates)].filter((f) => isRunnableFile(root, f)).sort();
}

/** Whether one module file (project-relative, `/`-separated) is runnable by the rules of {@link discoverWorkflowFiles}. */
export function isRunnableFile(root: string, file: string): boolean {
  const dirs = file.split("/").slice(0, -1);
  if (!isModuleFile(file) || dirs.some((d) => d.startsWith(".") || SKIP_DIRS.has(d))) return false;
  if (!isSluiceProject(root)) return false;
  if (WORKFLOW_FOLDERS.some((folder) => file.startsWith(`${folder}/`))) return true;
  if (dirs.length > 0 && !SCRIPT_FOLDERS.includes(dirs[0]!)) return false;
  const full = join(root, file);
  try {
    return statSync(full).size <= MAX_SOURCE_BYTES && looksRunnable(readFileSync(full, "utf8"));
  } catch {
    return false;
  }
}
