/**
 * The retention a `--release` server keeps: the one of the `sluice.json` the release was deployed
 * with (written into the release tree), followed across switches to newer releases, not the one of
 * the machine's own folder (which on a release machine usually has no `sluice.json`, so the default
 * 184 days silently replaced what was deployed, `"forever"` included). A release whose `sluice.json`
 * sets no retention keeps the machine folder's, else the default.
 *
 * @module
 */
import type { Retention } from "../core/retention.js";
import type { Engine } from "../engine/engine.js";
import type { ReleaseFollower } from "../release/follower.js";
import { applyRetention } from "./config-retention.js";
import { loadProjectConfig } from "./config.js";

/**
 * The retention the release tree at `releaseRoot` asks for: its `sluice.json`'s, else `fallback`
 * (the machine folder's).
 * @throws InvalidInputError when the release's `sluice.json` does not parse or holds a bad value
 */
function releaseRetention(releaseRoot: string, fallback: Retention | undefined): Retention | undefined {
  return loadProjectConfig(releaseRoot).retention ?? fallback;
}

/**
 * Applies the current release's retention to the engine's scheduler now and after each switch,
 * saying each change (`release 2's sluice.json: retention 30d (was 184d)`). A release whose
 * `sluice.json` cannot be read keeps the retention in force, said through `warn`.
 */
export function followReleaseRetention(
  engine: Engine,
  follower: ReleaseFollower,
  releaseRoot: string,
  fallback: Retention | undefined,
  write: (line: string) => void,
  warn: (line: string) => void,
): void {
  const apply = () => {
    const id = follower.current?.id;
    try {
      const line = applyRetention(engine, releaseRetention(releaseRoot, fallback), `release ${id}'s sluice.json`);
      if (line) write(line);
    } catch (err) {
      warn(`warning: release ${id}: retention left as it was: ${(err as Error).message}\n`);
    }
  };
  apply();
  follower.onSwitch(apply);
}
