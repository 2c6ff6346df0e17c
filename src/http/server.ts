/**
 * Serving the app on a socket with `@hono/node-server`. Binds 127.0.0.1 unless told
 * otherwise; `close()` ends open streams (SSE) too, so shutdown never hangs.
 */
import type { AddressInfo } from "node:net";
import type { IncomingMessage, Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { SluiceError } from "../sdk/errors.js";

/** The port is taken (or cannot be bound). */
export class PortInUseError extends SluiceError {
  constructor(host: string, port: number, cause: unknown) {
    super(
      "PORT_IN_USE",
      `cannot listen on ${host}:${port} (${(cause as Error).message}): stop what uses it or pass another --port`,
      { cause },
    );
  }
}

/** A listening server. */
export interface HttpServer {
  /** `http://host:port` of the server. */
  url: string;
  host: string;
  port: number;
  /** Stops listening and closes every open connection (once; later calls return the same promise). */
  close(): Promise<void>;
}

/** What the server calls for each request (an app's `fetch`, or a function that forwards to one). */
export type FetchHandler = (request: Request, env: { incoming?: IncomingMessage }) => Response | Promise<Response>;

/** Options of {@link startHttpServer}. */
export interface ListenOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** When the port is taken, try the next ones, up to this many more (default 0: fail). */
  fallbackPorts?: number;
}

/**
 * Starts serving `fetch`.
 * @throws PortInUseError when the port (and every fallback) is taken
 */
export async function startHttpServer(fetch: FetchHandler, options: ListenOptions): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  const tries = (options.fallbackPorts ?? 0) + 1;
  let lastError: unknown;
  for (let i = 0; i < tries; i++) {
    const port = options.port === 0 ? 0 : options.port + i;
    const server = createAdaptorServer({
      fetch: (req, env) => fetch(req, env as { incoming?: IncomingMessage }),
      hostname: host,
      port,
      overrideGlobalObjects: false,
    }) as Server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      lastError = err;
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") break;
      continue;
    }
    const bound = (server.address() as AddressInfo).port;
    const shown = host.includes(":") ? `[${host}]` : host;
    let closing: Promise<void> | null = null;
    return {
      url: `http://${shown}:${bound}`,
      host,
      port: bound,
      close: () =>
        (closing ??= new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        })),
    };
  }
  throw new PortInUseError(host, options.port, lastError);
}
