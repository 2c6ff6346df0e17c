/**
 * `GET /api/releases` (who published each release, when, what changed), `GET /api/releases/:id`
 * (with its manifest), `GET /api/releases/:id/diff` (the texts of the files it changed, both sides)
 * and `GET /api/runs/:id/release` (which release a run used).
 */
import type { Hono } from "hono";
import { fileChanges, releaseOfRun, sourceBlobKey } from "../../core/release.js";
import { RunNotFoundError } from "../../sdk/errors.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { HttpError } from "../errors.js";
import { releaseView } from "../views.js";

/** Releases listed at most. */
const LIST_LIMIT = 200;
/** Files larger than this are listed in a diff without their text. */
const DIFF_TEXT_LIMIT = 256 * 1024;

/** Registers the release routes. */
export function releaseRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/releases", requireScope("read"), async (c) => {
    const releases = await store.listReleases(LIST_LIMIT);
    return c.json({ current: releases[0]?.id ?? null, releases: releases.map((r) => releaseView(r)) });
  });

  const releaseOr404 = async (param: string) => {
    const id = Number(param);
    const release = Number.isSafeInteger(id) && id > 0 ? await store.getRelease(id) : null;
    if (!release)
      throw new HttpError(404, "UNKNOWN_RELEASE", `release ${param} does not exist: list them at /api/releases`);
    return release;
  };

  app.get("/api/releases/:id", requireScope("read"), async (c) =>
    c.json(releaseView(await releaseOr404(c.req.param("id")))),
  );

  app.get("/api/releases/:id/diff", requireScope("read"), async (c) => {
    const release = await releaseOr404(c.req.param("id"));
    const previous = release.id > 1 ? await store.getRelease(release.id - 1) : null;
    const text = async (hash: string | null) => {
      if (hash === null) return null;
      const code = await store.getBundle(sourceBlobKey(hash));
      return code !== null && code.length <= DIFF_TEXT_LIMIT ? code : null;
    };
    const files = await Promise.all(
      fileChanges(previous?.manifest ?? null, release.manifest).map(async (f) => ({
        ...f,
        beforeText: await text(f.before),
        afterText: await text(f.after),
      })),
    );
    return c.json({ release: release.id, previous: previous?.id ?? null, files });
  });

  app.get("/api/runs/:id/release", requireScope("read"), async (c) => {
    const run = await store.getRun(c.req.param("id"));
    if (!run) throw new RunNotFoundError(c.req.param("id"));
    const all = (await store.releaseBundles()).map((r) => ({ ...r, bundles: new Set(r.bundles) }));
    return c.json({ run: run.id, version: run.version, release: releaseOfRun(run, all) });
  });
}
