/** `GET /api/lanes`: this server's worker lanes (scale to zero), as its lane supervisor sees them. */
import type { Hono } from "hono";
import type { ApiLanes } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";

/** Registers the lane status route. */
export function laneRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/lanes", requireScope("read"), (c) => {
    const body: ApiLanes = { supervised: deps.lanes !== null, lanes: deps.lanes?.lanesInfo() ?? [] };
    return c.json(body);
  });
}
