import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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
    .option("--json", "print what was written as JSON")
    .action(async (dir: string, opts: { db?: string; release?: string; json?: boolean }) => {
      const project = resolveProject(cx.io, undefined, opts.db);
      if (wouldCreateStrayDatabase(project))
        throw new InvalidInputError(
          `there is no database at ${project.dbLabel} to pull a release from: name it with --db (or SLUICE_DATABASE_URL), or run sluice pull in the project folder whose database holds it`,
          { code: "NO_DATABASE" },
        );
      const target = resolve(cx.io.cwd, dir);
      if (!existsSync(target)) mkdirSync(target, { recursive: true });
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
        const { materializeRelease } = await import("../../release/materialize.js");
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
