/**
 * The files a release carries: every source a machine needs to run or pull the project
 * (TypeScript and JavaScript modules with their `__mod/` companions, Python, Bash and SQL
 * scripts, `pipeline.json` trigger rows, `package.json`, `sluice.json`), each by content hash.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReleaseFile } from "../core/release.js";
import { listProjectFiles } from "../loader/project-files.js";

const SOURCE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs", ".cjs", ".py", ".sh", ".sql"];
const CONFIG_FILES = new Set(["pipeline.json", "package.json", "sluice.json"]);

/** Whether a file name belongs in a release. */
function isReleaseFile(name: string): boolean {
  if (CONFIG_FILES.has(name)) return true;
  if (name.endsWith(".d.ts") || /\.(test|spec)\.[mc]?[jt]s$/.test(name)) return false;
  return SOURCE_EXTENSIONS.some((x) => name.endsWith(x));
}

/** Content hash of a file's text (the per-module hash of lock files). */
export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** A project's release files with their texts, sorted by path. */
export function collectReleaseFiles(root: string): Array<ReleaseFile & { text: string }> {
  return listProjectFiles(root, isReleaseFile).map((path) => {
    const text = readFileSync(join(root, path), "utf8");
    return { path, hash: contentHash(text), bytes: Buffer.byteLength(text), text };
  });
}
