/**
 * Serves the built web UI (`dist/ui`, made by `npm run build`): hashed assets with long
 * caching, and `index.html` for every other page path (the UI routes in the browser).
 * Without a build, page paths get a short page that says how to build it; the API
 * works either way.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Hono } from "hono";
import type { AppEnv } from "./context.js";

/** Security headers of the UI's pages. React Flow positions nodes with inline styles, hence `style-src 'unsafe-inline'`. */
const UI_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "Cache-Control": "no-cache",
  "Referrer-Policy": "same-origin",
};

/** The `dist/ui` folder of this package (found from this module's location, in `src/` or `dist/`). */
export function defaultUiDir(): string | null {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return join(dir, "dist", "ui");
    if (dirname(dir) === dir) return null;
  }
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Sluice</title>
<p style="font-family:system-ui;margin:40px">The Sluice web UI is not built. Run <code>npm run build</code> and reload; the API at <code>/api</code> works without it.</p>`;

/** Registers the UI routes (call last: it answers every remaining page path). */
export function uiRoutes(app: Hono<AppEnv>, uiDir: string | null): void {
  const index = uiDir ? join(uiDir, "index.html") : null;
  if (uiDir && existsSync(uiDir)) {
    app.use(
      "/assets/*",
      serveStatic({
        root: uiDir,
        onFound: (_path, c) => void c.header("Cache-Control", "public, max-age=31536000, immutable"),
      }),
    );
    app.get("/favicon.svg", serveStatic({ root: uiDir }));
  }
  app.get("*", async (c, next) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/api") return next();
    if (!index || !existsSync(index)) return c.html(NOT_BUILT, 200, { "Cache-Control": "no-store" });
    return c.html(readFileSync(index, "utf8"), 200, UI_HEADERS);
  });
}
