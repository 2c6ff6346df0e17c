/**
 * The HTTP app: the JSON API under `/api`, the approval pages under `/approve`, and the
 * web UI for every other page path. Built with Hono and testable in-process with
 * `app.request("/api/runs")`; `server.ts` serves it on a socket.
 */
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { type Clock, systemClock } from "../core/clock.js";
import { serializeError } from "../core/serde.js";
import type { Engine } from "../engine/engine.js";
import type { PipelineHost } from "../pipeline/runtime/host.js";
import { ApprovalRefusedError } from "./approval/decide.js";
import { approvalPageRoutes } from "./approval/routes.js";
import { type AuthConfig, identify } from "./auth/identity.js";
import { ApiTokens } from "./auth/tokens.js";
import { ChangeFeed } from "./change-feed.js";
import type { AppDeps, AppEnv, LaneStatus, TriggerSource } from "./context.js";
import type { WorkerCommandState } from "./readiness.js";
import { DiagramSource } from "./diagram-source.js";
import { httpStatusOf } from "./errors.js";
import { guard } from "./guard.js";
import { type BodyLimits, DEFAULT_BODY_LIMITS } from "./json-body.js";
import { eventRoutes } from "./routes/events.js";
import { laneRoutes } from "./routes/lanes.js";
import { triggerRoutes } from "./routes/triggers.js";
import { logRoutes } from "./routes/logs.js";
import { metaRoutes } from "./routes/meta.js";
import { overviewRoutes } from "./routes/overview.js";
import { lakeTableRoutes } from "./routes/lake-tables.js";
import { pipelineRoutes } from "./routes/pipelines.js";
import { resumeLinkRoutes } from "./routes/resume-links.js";
import { runActionRoutes } from "./routes/run-actions.js";
import { runRoutes } from "./routes/runs.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { signalRoutes } from "./routes/signals.js";
import { tokenRoutes } from "./routes/tokens.js";
import { releaseRoutes } from "./routes/releases.js";
import { workflowRoutes } from "./routes/workflows.js";
import { workerProtocolRoutes } from "./routes/worker-protocol.js";
import { defaultUiDir, uiRoutes } from "./static-ui.js";

/** Options of {@link createApp}. */
export interface AppOptions {
  engine: Engine;
  /** How requests authenticate. `off` only for `sluice dev` on loopback. */
  auth: AuthConfig;
  clock?: Clock;
  /** Request body limits (default 1 MiB, nesting depth 64). */
  limits?: Partial<BodyLimits>;
  /** Project folder the workflows were loaded from (for diagrams); null for none. */
  projectRoot?: string | null;
  /** Built web UI folder; default this package's `dist/ui`; null serves no UI. */
  uiDir?: string | null;
  /** Called with unexpected errors (default: printed to stderr). */
  onError?: (err: unknown) => void;
  /** The server's lane supervisor, for `GET /api/lanes`; default none. */
  lanes?: LaneStatus | null;
  /** The health of the worker commands of `sluice.json` this server started, for `GET /api/ready`; default none. */
  workerCommands?: (() => WorkerCommandState[]) | null;
  /** Trace viewer URL template with `{traceId}`, e.g. `https://jaeger.example/trace/{traceId}` (`SLUICE_TRACE_URL`); default none. */
  traceUrl?: string | null;
  /** The server's trigger rows, for `/api/triggers`; default none. */
  triggers?: TriggerSource | null;
  /** The pipeline runtime attached to `engine` (`attachPipelines`), for the pipeline, lake and upload routes; default none. */
  pipelines?: PipelineHost | null;
}

/** The app plus what it holds that can be inspected in tests. */
export type SluiceApp = Hono<AppEnv> & { deps: AppDeps };

/** Builds the HTTP app on an engine. */
export function createApp(options: AppOptions): SluiceApp {
  const clock = options.clock ?? systemClock;
  const deps: AppDeps = {
    engine: options.engine,
    auth: options.auth,
    clock,
    tokens: new ApiTokens(options.engine.store, clock),
    limits: { ...DEFAULT_BODY_LIMITS, ...options.limits },
    feed: new ChangeFeed(options.engine),
    diagrams: new DiagramSource(options.projectRoot ?? null),
    lanes: options.lanes ?? null,
    workerCommands: options.workerCommands ?? null,
    traceUrl: options.traceUrl || null,
    triggers: options.triggers ?? null,
    pipelines: options.pipelines ?? null,
  };
  const report =
    options.onError ?? ((err: unknown) => console.error(`sluice http: ${(err as Error)?.stack ?? String(err)}`));
  const app = new Hono<AppEnv>();

  app.onError((err, c) => {
    const status = httpStatusOf(err);
    if (status === 500) {
      report(err);
      return c.json({ error: { code: "INTERNAL", message: "internal error: see the server's log" } }, 500);
    }
    const e = serializeError(err);
    const extra = err instanceof ApprovalRefusedError ? { outcome: err.outcome, problems: err.problems } : {};
    return c.json({ error: { code: e.code ?? "ERROR", message: e.message, ...extra } }, status);
  });
  app.notFound((c) =>
    c.json(
      { error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}: see /api/openapi.json` } },
      404,
    ),
  );

  app.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: undefined,
      crossOriginResourcePolicy: "same-origin",
      referrerPolicy: "same-origin",
      xFrameOptions: "DENY",
      strictTransportSecurity: false,
    }),
  );
  app.use("/api/*", async (c, next) => {
    await next();
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  });
  app.use("*", guard(options.auth));
  app.use("*", identify(options.auth, deps.tokens));

  metaRoutes(app, deps);
  runRoutes(app, deps);
  overviewRoutes(app, deps);
  runActionRoutes(app, deps);
  resumeLinkRoutes(app, deps);
  logRoutes(app, deps);
  eventRoutes(app, deps);
  signalRoutes(app, deps);
  workflowRoutes(app, deps);
  releaseRoutes(app, deps);
  scheduleRoutes(app, deps);
  tokenRoutes(app, deps);
  pipelineRoutes(app, deps);
  lakeTableRoutes(app, deps);
  laneRoutes(app, deps);
  triggerRoutes(app, deps);
  workerProtocolRoutes(app, deps);
  approvalPageRoutes(app, deps);
  uiRoutes(app, options.uiDir === undefined ? defaultUiDir() : options.uiDir);
  return Object.assign(app, { deps });
}
