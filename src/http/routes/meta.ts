/** `GET /api/health`, `GET /api/ready` and `GET /api/openapi.json` (public, for probes), `GET /metrics` (Prometheus), `GET /api/me` (the caller). */
import type { Hono } from "hono";
import type { ApiMe } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { openApiDocument } from "../openapi/document.js";
import { scrapeMetrics } from "../metrics.js";
import { checkReadiness } from "../readiness.js";

/** Registers the meta routes. */
export function metaRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/health", (c) => c.json({ ok: true, store: deps.engine.store.kind }));
  app.get("/api/ready", async (c) => {
    const scheduler = deps.engine.scheduler;
    const lanes = deps.lanes;
    const readiness = await checkReadiness({
      store: deps.engine.store,
      leadership: scheduler ? () => scheduler.leadership() : null,
      lanes: lanes ? () => lanes.lanesInfo() : null,
      workerCommands: deps.workerCommands,
    });
    return c.json(readiness, readiness.ready ? 200 : 503);
  });
  app.get("/metrics", requireScope("metrics"), async (c) => {
    const scrape = await scrapeMetrics(deps.engine, (await deps.lanes?.metrics?.parts()) ?? []);
    return c.body(scrape.body, 200, { "Content-Type": scrape.contentType });
  });
  app.get("/api/openapi.json", (c) => c.json(openApiDocument()));
  app.get("/api/me", requireScope("read"), (c) => {
    const id = c.get("identity")!;
    const me: ApiMe = { name: id.name, scope: id.scope, auth: deps.auth.mode };
    return c.json(me);
  });
}
