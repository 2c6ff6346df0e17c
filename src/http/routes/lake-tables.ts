/**
 * Lake table routes (seed 001: a materialized `ducklake://` asset's details), served when a
 * pipeline runtime is attached:
 *
 * - `GET /api/lake/table?uri=ducklake://main/orders[&snapshot=3]`: the written partitions
 *   (snapshot, rows, time, tests), captured schema versions, column lineage (as of `snapshot`
 *   when given, with every lineage version) and the snapshots that touched the table (read)
 * - `GET /api/lake/table/preview?uri=…[&partition=2026-05-16][&snapshot=3][&limit=50]`: the
 *   first rows of the table (or of one partition) at a snapshot, read-only (read)
 */
import type { Hono } from "hono";
import { InvalidInputError } from "../../sdk/errors.js";
import { lakeAssetDetail, lakePreview, MAX_PREVIEW_ROWS } from "../../pipeline/runtime/lake-asset.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { NotFoundError } from "../errors.js";

function uriOf(value: string | undefined): string {
  if (!value)
    throw new InvalidInputError("?uri= is required, e.g. ?uri=ducklake://main/orders", { code: "INVALID_QUERY" });
  return value;
}

function whole(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max)
    throw new InvalidInputError(`?${name}= must be a whole number from 0 to ${max}, not ${JSON.stringify(value)}`, {
      code: "INVALID_QUERY",
    });
  return n;
}

/** Registers the lake table routes. */
export function lakeTableRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const assets = () => {
    const host = deps.pipelines;
    if (!host)
      throw new NotFoundError(
        "pipelines are not attached to this server: run it with sluice dev or sluice server",
        "PIPELINES_UNAVAILABLE",
      );
    return host.assets();
  };

  app.get("/api/lake/table", requireScope("read"), async (c) => {
    const snapshot = whole(c.req.query("snapshot"), "snapshot", Number.MAX_SAFE_INTEGER);
    return c.json(
      await lakeAssetDetail(deps.engine.store, await assets(), uriOf(c.req.query("uri")), {
        ...(snapshot !== undefined && { snapshot }),
        // the loaded scripts: a table not written yet shows the lineage its writer's SQL gives
        ...(deps.pipelines && { folders: deps.pipelines.catalog().folders() }),
      }),
    );
  });

  app.get("/api/lake/table/preview", requireScope("read"), async (c) => {
    const partition = c.req.query("partition");
    const snapshot = whole(c.req.query("snapshot"), "snapshot", Number.MAX_SAFE_INTEGER);
    const limit = whole(c.req.query("limit"), "limit", MAX_PREVIEW_ROWS);
    return c.json(
      await lakePreview(await assets(), uriOf(c.req.query("uri")), {
        ...(partition !== undefined && partition !== "" && { partition }),
        ...(snapshot !== undefined && { snapshot }),
        ...(limit !== undefined && { limit }),
      }),
    );
  });
}
