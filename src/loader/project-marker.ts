/**
 * How a folder is recognised as a Sluice project, and where its runnable modules live. The
 * loader imports modules only from a recognised project and only from these places, so running
 * a command in some other folder (a repository root, a home folder) never imports, and so never
 * runs the top-level code of, files that were not written as Sluice workflows.
 *
 * @module
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../sdk/errors.js";

/**
 * Folders whose modules are the project's runnables: every module under `workflows/` (Tako's
 * `<app_root>/workflows/`, also `src/workflows/`), and the modules of Windmill's script paths
 * (`f/<folder>/…`, `u/<user>/…`) that define a workflow or export `main`.
 */
export const WORKFLOW_FOLDERS: readonly string[] = ["workflows", "src/workflows"];
/** See {@link WORKFLOW_FOLDERS}. */
export const SCRIPT_FOLDERS: readonly string[] = ["f", "u"];

/** What makes a folder a project: its `sluice.json`, or one of the folders runnables live in. */
const MARKER_FILE = "sluice.json";

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The first project marker `root` holds (`sluice.json`, `workflows/`, `src/workflows/`, `f/`
 * or `u/`), or null when it is not a Sluice project.
 */
export function projectMarkerOf(root: string): string | null {
  if (isFile(join(root, MARKER_FILE))) return MARKER_FILE;
  const folder = [...WORKFLOW_FOLDERS, ...SCRIPT_FOLDERS].find((f) => isDir(join(root, f)));
  return folder === undefined ? null : `${folder}/`;
}

/** Whether `root` is a Sluice project (see {@link projectMarkerOf}). */
export function isSluiceProject(root: string): boolean {
  return projectMarkerOf(root) !== null;
}

/** The sentence every "not a project" message shares: what is missing and what to do. */
export function notAProjectHint(root: string): string {
  return (
    `${root} is not a Sluice project (it has no sluice.json and no workflows/, src/workflows/, f/ or u/ folder), ` +
    `so no module is loaded from it: run the command in your project folder or pass its path ` +
    `(--dir <project>; for the bundled examples: sluice dev examples, --dir examples), ` +
    `or make this folder a project by adding workflows/<name>.ts or a sluice.json`
  );
}

/** A command needed the project's code, and its folder is not a Sluice project. */
export class NotAProjectError extends InvalidInputError {
  constructor(
    /** The folder the command ran on. */
    readonly root: string,
    /** What the command was after, leading the message (e.g. `workflow "welcome" is not published in …`). */
    what?: string,
  ) {
    super(`${what ? `${what}, and ` : ""}${notAProjectHint(root)}`, { code: "NOT_A_PROJECT" });
  }
}
