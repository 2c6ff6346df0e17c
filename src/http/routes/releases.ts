/**
 * `GET /api/releases` (who published each release, when, what changed), `GET /api/releases/:id`
 * (with its manifest) and `GET /api/runs/:id/release` (which release a run used).
 */
import type { Hono } from "hono";
import { releaseOfRun } from "../../core/release.js";
import { RunNotFoundError } from "../../sdk/errors.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { HttpError } from "../errors.js";

/** Releases listed at most. */
const LIST_LIMIT = 200;

/** Registers the release routes. */
export function releaseRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/releases", requireScope("read"), async (c) => {
    const releases = await store.listReleases(LIST_LIMIT);
    return c.json({ current: releases[0]?.id ?? null, releases });
  });

  app.get("/api/releases/:id", requireScope("read"), async (c) => {
    const id = Number(c.req.param("id"));
    const release = Number.isSafeInteger(id) && id > 0 ? await store.getRelease(id) : null;
    if (!release)
      throw new HttpError(
        404,
        "UNKNOWN_RELEASE",
        `release ${c.req.param("id")} does not exist: list them at /api/releases`,
      );
    return c.json(release);
  });

  app.get("/api/runs/:id/release", requireScope("read"), async (c) => {
    const run = await store.getRun(c.req.param("id"));
    if (!run) throw new RunNotFoundError(c.req.param("id"));
    const all = (await store.releaseBundles()).map((r) => ({ ...r, bundles: new Set(r.bundles) }));
    return c.json({ run: run.id, version: run.version, release: releaseOfRun(run, all) });
  });
}
