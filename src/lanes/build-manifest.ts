/**
 * The code a server hands its lane workers: each module file and the version (bundle
 * hash) the server loaded for it. A lane worker started with `--from-build <file>`
 * imports exactly those versions instead of bundling the project again, so it starts
 * faster and runs the code the server published (a fresh worker after a reload gets the
 * new list). The file is named by its content hash and never changes once written.
 *
 * Each use touches the file, and writing one deletes the manifests nobody used for
 * {@link MANIFEST_KEEP_MS} (old code versions of this server, or of other servers on the
 * same project folder): a worker reads its manifest right after it is spawned, and a
 * server whose manifest was deleted writes it again at its next spawn.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../sdk/errors.js";

/** One module and its code version. */
export interface BuildEntry {
  file: string;
  hash: string;
}

/** A manifest not used for this long (by any server) is deleted when another one is written: one hour. */
export const MANIFEST_KEEP_MS = 60 * 60 * 1000;

const MANIFEST_NAME = /^build-[0-9a-f]{16}\.json$/;

/**
 * Writes the manifest of `entries` under `<root>/.sluice/lanes/` (once per content, then
 * only touched) and returns its path; deletes the manifests unused for {@link MANIFEST_KEEP_MS}.
 */
export function writeBuildManifest(root: string, entries: readonly BuildEntry[], now = Date.now()): string {
  const text = JSON.stringify({ modules: entries });
  const dir = join(root, ".sluice", "lanes");
  const path = join(dir, `build-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.json`);
  if (existsSync(path)) {
    utimesSync(path, now / 1000, now / 1000);
  } else {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    utimesSync(tmp, now / 1000, now / 1000);
    renameSync(tmp, path);
  }
  removeStaleManifests(dir, path, now);
  return path;
}

/** Deletes the manifests in `dir` other than `keep` last used before `now - MANIFEST_KEEP_MS`. */
function removeStaleManifests(dir: string, keep: string, now: number): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (!MANIFEST_NAME.test(name) || file === keep) continue;
    try {
      if (statSync(file).mtimeMs < now - MANIFEST_KEEP_MS) unlinkSync(file);
    } catch {
      // Deleted meanwhile by another server: nothing to do.
    }
  }
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
