/**
 * Starting the HTTP server before the engine exists: the engine's resume links need the
 * server's real URL (the port may be picked at bind time), and the app needs the
 * engine. `listen` binds first and answers 503 until `attach` hands it the app.
 */
import { isLoopbackAddress } from "./guard.js";
import { type FetchHandler, type HttpServer, startHttpServer } from "./server.js";

/** A bound server waiting for its app. */
export interface PendingServer {
  server: HttpServer;
  /** Where resume and approval links should point: the configured public URL, else the server's own URL. */
  baseUrl: string;
  /** Starts answering with `app`. */
  attach(app: { fetch: FetchHandler }): void;
}

/** True when `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || isLoopbackAddress(host.replace(/^\[|\]$/g, ""));
}

/**
 * Binds `host:port` (trying up to `fallbackPorts` more when the port is taken).
 * @throws PortInUseError
 */
export async function listen(options: {
  host: string;
  port: number;
  fallbackPorts?: number;
  env?: Record<string, string | undefined>;
  /** The configured public URL (`--public-url`, `SLUICE_PUBLIC_URL`, `sluice.json`); wins over `env.SLUICE_BASE_URL` and the bound address. */
  publicUrl?: string | null;
}): Promise<PendingServer> {
  let app: { fetch: FetchHandler } | null = null;
  const fetch: FetchHandler = (req, env) =>
    app
      ? app.fetch(req, env)
      : new Response(
          JSON.stringify({ error: { code: "STARTING", message: "the server is starting: retry in a moment" } }),
          { status: 503, headers: { "content-type": "application/json", "retry-after": "1" } },
        );
  const server = await startHttpServer(fetch, options);
  const wildcard = options.host === "0.0.0.0" || options.host === "::";
  const own = wildcard ? `http://127.0.0.1:${server.port}` : server.url;
  return {
    server,
    baseUrl: (options.publicUrl ?? options.env?.SLUICE_BASE_URL ?? own).replace(/\/+$/, ""),
    attach: (a) => void (app = a),
  };
}
