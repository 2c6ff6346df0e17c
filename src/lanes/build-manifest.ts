/**
 * The code a server hands its lane workers: each module file and the version (bundle
 * hash) the server loaded for it. A lane worker started with `--from-build <file>`
 * imports exactly those versions instead of bundling the project again, so it starts
 * faster and runs the code the server published (a fresh worker after a reload gets the
 * new list). The file is named by its content hash and never changes once written.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../sdk/errors.js";

/** One module and its code version. */
export interface BuildEntry {
  file: string;
  hash: string;
}

/** Writes the manifest of `entries` under `<root>/.sluice/lanes/` (once per content) and returns its path. */
export function writeBuildManifest(root: string, entries: readonly BuildEntry[]): string {
  const text = JSON.stringify({ modules: entries });
  const dir = join(root, ".sluice", "lanes");
  const path = join(dir, `build-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.json`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  }
  return path;
}

/**
 * Reads a manifest written by {@link writeBuildManifest}.
 * @throws InvalidInputError naming the file when it is missing or not a manifest
 */
export function readBuildManifest(path: string): BuildEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new InvalidInputError(
      `--from-build ${path} cannot be read (${(err as Error).message}): it is written by the lane supervisor; start the worker without --from-build`,
      {
        code: "INVALID_BUILD_MANIFEST",
      },
    );
  }
  const modules = (parsed as { modules?: unknown })?.modules;
  const valid =
    Array.isArray(modules) &&
    modules.every((m) => m && typeof m.file === "string" && typeof m.hash === "string" && /^[0-9a-f]+$/.test(m.hash));
  if (!valid) {
    throw new InvalidInputError(
      `--from-build ${path} is not a build manifest ({"modules": [{"file", "hash"}]}): start the worker without --from-build`,
      {
        code: "INVALID_BUILD_MANIFEST",
      },
    );
  }
  return (modules as BuildEntry[]).map((m) => ({ file: m.file, hash: m.hash }));
}
