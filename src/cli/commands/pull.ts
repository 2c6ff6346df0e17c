import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { lockOf } from "../../core/release.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { openStore, storeReady } from "../../store/open.js";
import { type CommandContext, json } from "../command.js";
import { parseCount } from "../options.js";
import { DB_OPTION, resolveProject, wouldCreateStrayDatabase } from "../project.js";

/** Name of the lock file `sluice pull` writes: the release and each file's content hash. */
export const LOCK_FILE = "sluice-lock.json";

/** `sluice pull [dir]`: write a release's files (modules in their `__mod/` folders) and a lock file. */
export function registerPull(program: Command, cx: CommandContext): void {
  program
    .command("pull")
    .description(`write the current (or a given) release's sources to a folder, with ${LOCK_FILE} (per-file hashes)`)
    .argument("[dir]", "folder to write into (created if missing)", ".")
    .option(...DB_OPTION)
    .option("--release <n>", "this release instead of the current one")
    .option("--force", "overwrite files changed locally since they were pulled")
    .option("--json", "print what was written as JSON")
    .action(async (dir: string, opts: { db?: string; release?: string; force?: boolean; json?: boolean }) => {
      const target = resolve(cx.io.cwd, dir);
      const project = resolveProject(cx.io, undefined, opts.db);
      if (wouldCreateStrayDatabase(project))
        throw new InvalidInputError(
          `there is no database at ${project.dbLabel} to pull a release from: name it with --db (or SLUICE_DATABASE_URL), or run sluice pull in the project folder whose database holds it`,
          { code: "NO_DATABASE" },
        );
      const store = openStore(project.dbPath);
      try {
        await storeReady(store);
        const id = opts.release === undefined ? await store.currentReleaseId() : parseCount(opts.release, "--release");
        const release = id === null ? null : await store.getRelease(id);
        if (!release)
          throw new InvalidInputError(
            id === null
              ? `${project.dbLabel} has no release yet: publish one with sluice deploy`
              : `release ${id} does not exist in ${project.dbLabel}`,
            { code: "UNKNOWN_RELEASE" },
          );
        const { materializeRelease, overwrittenLocalChanges } = await import("../../release/materialize.js");
        // Local work is not overwritten silently: a file whose text is neither the release's nor what the last pull wrote.
        const changed = opts.force ? [] : overwrittenLocalChanges(release.manifest, target, readLock(target));
        if (changed.length)
          throw new InvalidInputError(
            `${changed.length} file(s) in ${target} changed since they were pulled, and release ${release.id} would overwrite them: ${changed.join(", ")}; nothing was written: keep your changes elsewhere first, or pass --force to overwrite them`,
            { code: "LOCAL_CHANGES" },
          );
        // Created only now: a pull that fails leaves no folder behind.
        if (!existsSync(target)) mkdirSync(target, { recursive: true });
        const written = await materializeRelease(store, release.manifest, target, null);
        const lock = { release: release.id, files: lockOf(release.manifest) };
        writeFileSync(join(target, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
        if (opts.json) json(cx, { release: release.id, dir: target, written, lock: lock.files });
        else
          cx.io.stdout(
            `pulled release ${release.id} into ${target}: ${release.manifest.files.length} file(s), ${written.length} written, ${LOCK_FILE} updated\n`,
          );
      } finally {
        await store.close();
      }
    });
}

/** The file hashes of `dir`'s lock file; null when it has none (or one that cannot be read). */
function readLock(dir: string): Record<string, string> | null {
  try {
    const lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")) as { files?: unknown };
    return lock.files && typeof lock.files === "object" ? (lock.files as Record<string, string>) : null;
  } catch {
    return null;
  }
}
