/**
 * `--release` for `sluice worker` and `sluice server`: the process runs the database's current
 * release, written to `.sluice/release/` under its folder, instead of the project folder, and
 * follows newer releases (see `release/follower.ts`).
 *
 * @module
 */
import type { Engine } from "../engine/engine.js";
import { Project } from "../loader/project.js";
import type { ReleaseFollower } from "../release/follower.js";
import type { ProjectContext } from "./project.js";

/** `--release`, as `[flags, help]` for `.option(...)`. */
export const RELEASE_OPTION = [
  "--release",
  "run the database's current release (published by `sluice deploy`) instead of a project folder, and follow new releases",
] as const;

/** `--release-drain`, as `[flags, help, default]` for `.option(...)`. */
export const RELEASE_DRAIN_OPTION = [
  "--release-drain <duration>",
  "with --release: how long a switch to a newer release waits for in-flight claims to end before loading it anyway",
  "60s",
] as const;

/**
 * How often a `--release` process checks for a newer release besides the store's change notices,
 * which already wake it when a deploy commits (Postgres `LISTEN/NOTIFY`; SQLite's change check every
 * 25 ms): the poll is the safety net for a lost notice. `SLUICE_RELEASE_POLL_MS` overrides it.
 */
const RELEASE_POLL_MS = 1_000;

/** {@link RELEASE_POLL_MS}, or `SLUICE_RELEASE_POLL_MS` when set to a positive number of ms. */
export function releasePollMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SLUICE_RELEASE_POLL_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : RELEASE_POLL_MS;
}

/** A `--release` process's loader (on the local tree of the release's files) and its follower, with the files written. */
export interface ReleaseMode {
  loader: Project;
  follower: ReleaseFollower;
  /** The project as seen by lanes and pipelines: rooted at the release tree. */
  project: ProjectContext;
}

/**
 * Writes the current release's files and prepares its loader.
 * @throws NoReleaseError when nothing was deployed to the database yet
 */
export async function openReleaseMode(
  engine: Engine,
  project: ProjectContext,
  env: NodeJS.ProcessEnv,
  write: (t: string) => void,
  /** `--release-drain` (ms). */
  drainMs: number,
): Promise<ReleaseMode> {
  const { releaseTree } = await import("../release/materialize.js");
  const { ReleaseFollower } = await import("../release/follower.js");
  const root = releaseTree(project.root);
  const loader = new Project(root, engine, env, { dependencies: "bundle" });
  const follower = new ReleaseFollower(engine, loader, write, drainMs);
  await follower.fetch(project.dbLabel);
  return { loader, follower, project: { ...project, root } };
}
