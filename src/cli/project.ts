import { isAbsolute, join, resolve } from "node:path";
import { existsSync, statSync } from "node:fs";
import { createEngine, type Engine, type EngineOptions } from "../engine/engine.js";
import { configuredPublicUrl } from "../core/public-url.js";
import { InvalidInputError } from "../sdk/errors.js";
import { checkDatabaseSetting, describeDatabase, isPostgresUrl, openStore } from "../store/open.js";
import { isSluiceProject, NotAProjectError } from "../loader/project-marker.js";
import { loadProjectConfig, type ProjectConfig } from "./config.js";
import type { CliIO } from "./io.js";

/** Help text of every command's `--db` option. */
export const DB_OPTION_HELP =
  "Postgres URL (postgres://user:pass@host/db?schema=sluice) or SQLite file; default $SLUICE_DATABASE_URL, else $SLUICE_DATABASE, else sluice.json's database, else .sluice/sluice.db in the project folder";

/** The project a command works on. */
export interface ProjectContext {
  root: string;
  /** The store: a SQLite file (absolute path) or a `postgres://` URL. */
  dbPath: string;
  /** {@link dbPath} without any password, for messages. */
  dbLabel: string;
  /**
   * Whether the database was named (`--db`, `SLUICE_DATABASE_URL`, `SLUICE_DATABASE`,
   * `sluice.json` `database`) rather than the default `<root>/.sluice/sluice.db`.
   */
  dbNamed: boolean;
  config: ProjectConfig;
}

/**
 * Resolves the project folder (`dir`, else `SLUICE_DIR`, else the working directory)
 * and its database (`--db`, else `SLUICE_DATABASE_URL`, else `SLUICE_DATABASE`, else
 * `sluice.json`'s `database`, else `.sluice/sluice.db`). A `postgres://` URL selects
 * the Postgres store; anything else is a SQLite file relative to the project.
 */
export function resolveProject(io: CliIO, dir?: string, db?: string): ProjectContext {
  const root = resolve(io.cwd, dir ?? io.env.SLUICE_DIR ?? ".");
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new InvalidInputError(
      `project folder ${root} does not exist: pass an existing folder (sluice dev examples)`,
      { code: "INVALID_PROJECT" },
    );
  }
  const config = loadProjectConfig(root);
  const named = db ?? io.env.SLUICE_DATABASE_URL ?? io.env.SLUICE_DATABASE ?? config.database;
  const dbSetting = named ?? join(".sluice", "sluice.db");
  checkDatabaseSetting(dbSetting);
  const dbPath = isPostgresUrl(dbSetting) || isAbsolute(dbSetting) ? dbSetting : join(root, dbSetting);
  return { root, dbPath, dbLabel: describeDatabase(dbPath), dbNamed: named !== undefined, config };
}

/**
 * Whether opening the project's database would create one nobody asked for: outside a Sluice
 * project, the default `.sluice/sluice.db` when it does not exist yet (a stray database in
 * whatever folder the command ran in). A database named explicitly (`--db`, the environment)
 * or one that exists already is not.
 */
export function wouldCreateStrayDatabase(project: ProjectContext): boolean {
  return !project.dbNamed && !isSluiceProject(project.root) && !existsSync(project.dbPath);
}

/**
 * Refuses to open a database nobody asked for ({@link wouldCreateStrayDatabase}).
 * @throws NotAProjectError saying there is no database there and how to name one
 */
export function refuseStrayDatabase(project: ProjectContext): void {
  if (!wouldCreateStrayDatabase(project)) return;
  throw new NotAProjectError(
    project.root,
    `there is no database at ${project.dbLabel} (name one with --db or SLUICE_DATABASE_URL)`,
  );
}

/**
 * The configured public URL (resume and approval links): `--public-url`, else
 * `SLUICE_PUBLIC_URL`, else `SLUICE_BASE_URL`, else `sluice.json` `publicUrl`; null when none is set.
 * @throws InvalidInputError (`INVALID_PUBLIC_URL`) naming the setting
 */
export function publicUrlSetting(io: CliIO, project: ProjectContext, flag?: string): string | null {
  return configuredPublicUrl([
    ["--public-url", flag],
    ["SLUICE_PUBLIC_URL", io.env.SLUICE_PUBLIC_URL],
    ["SLUICE_BASE_URL", io.env.SLUICE_BASE_URL],
    ["sluice.json publicUrl", project.config.publicUrl],
  ]);
}

/** `--public-url`, as `[flags, help]` for `.option(...)`. */
export const PUBLIC_URL_OPTION = [
  "--public-url <url>",
  "public URL of this server (behind a proxy), where approval links point; recorded in the database for workers (default $SLUICE_PUBLIC_URL, sluice.json publicUrl, else the bound address)",
] as const;

/** `--dir` and `--db`, as `[flags, help]` for `.option(...)`. */
export const DIR_OPTION = ["--dir <dir>", "project folder (default: current folder)"] as const;
export const DB_OPTION = ["--db <url-or-file>", DB_OPTION_HELP] as const;

/**
 * Runs `fn` with an engine on the project named by `--dir`/`--db` (no worker or
 * scheduler unless asked), stopping it afterwards whatever happens. `createDatabase`: the
 * command may create the default database outside a project too (`token create`: the first
 * step of a `sluice server` for external workers, which starts in any folder).
 * @throws NotAProjectError outside a project with no database named or there ({@link refuseStrayDatabase})
 */
export async function withEngine<T>(
  io: CliIO,
  opts: { dir?: string; db?: string; createDatabase?: boolean },
  fn: (engine: Engine, project: ProjectContext) => Promise<T>,
  options: EngineOptions = {},
): Promise<T> {
  const project = resolveProject(io, opts.dir, opts.db);
  if (!opts.createDatabase) refuseStrayDatabase(project);
  const engine = openEngine(project, options);
  try {
    return await fn(engine, project);
  } finally {
    await engine.stop();
  }
}

/**
 * {@link withEngine} for commands that only read: a SQLite file this process may not
 * write is opened read-only (with a note on stderr) instead of failing.
 * @throws NotAProjectError outside a project with no database named or there ({@link refuseStrayDatabase})
 */
export async function withReadEngine<T>(
  io: CliIO,
  opts: { dir?: string; db?: string },
  fn: (engine: Engine, project: ProjectContext) => Promise<T>,
): Promise<T> {
  const project = resolveProject(io, opts.dir, opts.db);
  refuseStrayDatabase(project);
  const store = openStore(project.dbPath, { readOnlyFallback: true });
  if ((store as { readOnly?: boolean }).readOnly) {
    io.stderr(
      `note: ${project.dbLabel} is read-only for this user: showing what it holds; commands that change runs will fail until it is writable\n`,
    );
  }
  const engine = openEngine(project, { store });
  try {
    return await fn(engine, project);
  } finally {
    await engine.stop();
    await store.close();
  }
}

/** Opens an engine on the project's database (no worker or scheduler unless asked). */
export function openEngine(ctx: ProjectContext, options: EngineOptions = {}): Engine {
  return createEngine({
    database: ctx.dbPath,
    retention: ctx.config.retention,
    worker: false,
    scheduler: false,
    ...options,
  });
}
