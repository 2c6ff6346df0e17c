/** What every route handler gets: the app's dependencies and the per-request variables. */
import type { TriggerSpec } from "../triggers/spec.js";
import type { IncomingMessage } from "node:http";
import type { Clock } from "../core/clock.js";
import type { Engine } from "../engine/engine.js";
import type { LaneInfo } from "../lanes/lane.js";
import type { MetricsJson } from "../lanes/lane-metrics.js";
import type { WorkerCommandState } from "./readiness.js";
import type { PipelineHost } from "../pipeline/runtime/host.js";
import type { AuthConfig, Identity } from "./auth/identity.js";
import type { ApiTokens } from "./auth/tokens.js";
import type { ChangeFeed } from "./change-feed.js";
import type { DiagramSource } from "./diagram-source.js";
import type { BodyLimits } from "./json-body.js";

/** Hono environment of the app: node's request (when served over a socket) and the caller. */
export interface AppEnv {
  Bindings: { incoming?: IncomingMessage };
  Variables: { identity: Identity | null };
}

/** The app's dependencies, shared by every route. */
export interface AppDeps {
  engine: Engine;
  auth: AuthConfig;
  clock: Clock;
  tokens: ApiTokens;
  limits: BodyLimits;
  feed: ChangeFeed;
  diagrams: DiagramSource;
  /** The lane supervisor of this server (`sluice server`, `sluice dev --workers separate`), or null. */
  lanes: LaneStatus | null;
  /** The health of the worker commands of `sluice.json` this server started (for `/api/ready`), or null. */
  workerCommands: (() => WorkerCommandState[]) | null;
  /** Trace viewer URL template with `{traceId}` (`SLUICE_TRACE_URL`), or null: trace ids are shown unlinked. */
  traceUrl: string | null;
  /** The trigger rows of this server's project (`sluice dev`, `sluice server`), or null. */
  triggers: TriggerSource | null;
  /** The pipeline runtime attached to this server's engine (`sluice dev`, `sluice server`), or null: the pipeline, lake and upload routes answer `PIPELINES_UNAVAILABLE`. */
  pipelines: PipelineHost | null;
}

/** What the API reads of a server's triggers: the rows it consumes (their state is in the store). */
export interface TriggerSource {
  specs(): readonly TriggerSpec[];
}

/** What the API reads of a lane supervisor. */
export interface LaneStatus {
  lanesInfo(): LaneInfo[];
  /** The lane workers' metrics (`lanes/lane-metrics.ts`), summed into `/metrics`; absent: none. */
  readonly metrics?: { parts(): Promise<MetricsJson[]> };
}
