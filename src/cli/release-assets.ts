/**
 * Where a `--release` process keeps pipeline assets: where the `sluice.json` the release was deployed
 * with says (`"assets"`, written into the release tree), not where the machine folder's says. A
 * `sluice worker --release` used to take its folder's (on a release machine usually none: a private
 * `.sluice/s3` under the release tree), so its steps wrote beside the bucket or shared folder the
 * project named while the server's lanes, which run on the release tree, used it. A release whose
 * `sluice.json` names no assets keeps the machine folder's, else the default.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { ReleaseFollower } from "../release/follower.js";
import { loadProjectConfig } from "./config.js";

/**
 * The `assets` setting of the release tree at `releaseRoot`: its `sluice.json`'s, else `fallback`.
 * @throws InvalidInputError when the release's `sluice.json` does not parse or holds a bad value
 */
export function releaseAssets(releaseRoot: string, fallback: unknown): unknown {
  return loadProjectConfig(releaseRoot).assets ?? fallback;
}

/**
 * Says, after each switch to a newer release, when its `assets` differ from `inForce` (the ones this
 * process's pipelines were attached with, which stay until a restart).
 */
export function warnReleaseAssetChanges(
  follower: ReleaseFollower,
  releaseRoot: string,
  fallback: unknown,
  inForce: unknown,
  warn: (line: string) => void,
): void {
  follower.onSwitch(() => {
    let next: unknown;
    try {
      next = releaseAssets(releaseRoot, fallback);
    } catch (err) {
      warn(`warning: release ${follower.current?.id}: sluice.json unreadable: ${(err as Error).message}\n`);
      return;
    }
    if (!isDeepStrictEqual(next, inForce))
      warn(
        `warning: release ${follower.current?.id} changes sluice.json "assets": restart this process to use them (its pipelines keep the assets it started with)\n`,
      );
  });
}
