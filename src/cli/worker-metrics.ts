/**
 * The metrics of a `sluice worker` process, which has no API server of its own:
 *
 * - `--metrics-port <n>`: `GET /metrics` on a small HTTP server of its own with this
 *   process's in-process figures (claims, steps, commits, decisions; the database's figures
 *   come from `sluice server`'s `/metrics`). On a loopback address it is open; on any other
 *   it needs a bearer token of scope `metrics` (or above), as the server's does.
 * - As a lane worker of `sluice server`: its figures go to the server over the lane's IPC
 *   channel every {@link LANE_METRICS_INTERVAL_MS} and once more as it stops, and the
 *   server's `/metrics` includes them (`lanes/lane-metrics.ts`).
 */
// node:http (and net, its agent, …) loads only with --metrics-port: a lane worker does not need it to claim.
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidInputError } from "../core/errors.js";
import type { Engine } from "../engine/engine.js";
import { LANE_METRICS_INTERVAL_MS } from "../lanes/protocol.js";
import type { SupervisorLink } from "../lanes/worker-link.js";

/** What {@link startWorkerMetrics} started; `stop` sends a lane worker's last figures. */
export interface WorkerMetrics {
  /** `http://host:port/metrics` when serving, else null. */
  url: string | null;
  stop(): Promise<void>;
}

/** Serves and/or sends the worker's metrics (see the module comment). */
export async function startWorkerMetrics(args: {
  engine: Engine;
  link: SupervisorLink | null;
  port: number | null;
  host: string;
}): Promise<WorkerMetrics> {
  const { engine, link } = args;
  if (args.port !== null && args.port > 65_535)
    throw new InvalidInputError(`--metrics-port ${args.port} is not a port: use 1-65535, or 0 for any free port`, {
      code: "INVALID_NUMBER",
    });
  // Read when sent, not now: the registry loads prom-client, which a lane worker's first claim need not wait for.
  const push = async () => {
    if (link) await link.metrics(await engine.metrics.registry.getMetricsAsJSON());
  };
  const timer = link ? setInterval(() => void push().catch(() => {}), LANE_METRICS_INTERVAL_MS) : null;
  timer?.unref();
  const server = args.port === null ? null : await serve(engine, args.port, args.host);
  const address = server ? (server.address() as AddressInfo) : null;
  const host = address?.family === "IPv6" ? `[${address.address}]` : address?.address;
  return {
    url: address ? `http://${host}:${address.port}/metrics` : null,
    async stop() {
      if (timer) clearInterval(timer);
      await push().catch(() => {});
      if (server) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function serve(engine: Engine, port: number, host: string): Promise<Server> {
  const { createServer } = await import("node:http");
  const { isLoopbackHost } = await import("../http/launch.js");
  const open = isLoopbackHost(host);
  const tokens = open ? null : new (await import("../http/auth/tokens.js")).ApiTokens(engine.store);
  const { scopeAllows } = await import("../http/auth/scopes.js");
  const allowed = async (req: IncomingMessage): Promise<boolean> => {
    if (!tokens) return true;
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    const info = m ? await tokens.verify(m[1]!) : null;
    return info !== null && scopeAllows(info.scope, "metrics");
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics here\n");
        return;
      }
      if (!(await allowed(req))) {
        res
          .writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" })
          .end("send a token of scope metrics: sluice token create --name prometheus --scope metrics\n");
        return;
      }
      const body = await engine.metrics.registry.metrics();
      res.writeHead(200, { "content-type": engine.metrics.registry.contentType }).end(body);
    })().catch((err: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(`${(err as Error).message}\n`);
    });
  });
  const { PortInUseError } = await import("../http/server.js");
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(new PortInUseError(host, port, err)));
    server.listen(port, host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  return server;
}
