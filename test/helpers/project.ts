import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tempDir } from "./tmp.js";

/** The repository root (where node_modules lives). */
export const REPO = resolve(import.meta.dirname, "../..");

/**
 * A throwaway project folder with `files` written into it and the repository's
 * node_modules linked in, so user modules can import npm packages.
 */
export function makeProject(files: Record<string, string>, prefix = "sluice-project-"): string {
  const root = tempDir(prefix);
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  writeFiles(root, files);
  return root;
}

/** Writes files (creating folders) under `root`. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const full = join(root, rel);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}
