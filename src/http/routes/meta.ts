/** `GET /api/health` and `GET /api/openapi.json` (public), `GET /api/me` (the caller). */
import type { Hono } from "hono";
import type { ApiMe } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { openApiDocument } from "../openapi/document.js";

/** Registers the meta routes. */
export function metaRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/health", (c) => c.json({ ok: true, store: deps.engine.store.kind }));
  app.get("/api/openapi.json", (c) => c.json(openApiDocument()));
  app.get("/api/me", requireScope("read"), (c) => {
    const id = c.get("identity")!;
    const me: ApiMe = { name: id.name, scope: id.scope, auth: deps.auth.mode };
    return c.json(me);
  });
}
