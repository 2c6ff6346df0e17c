/**
 * The JSON shapes of the HTTP API: the contract shared by the server (`views.ts`), the
 * web UI (`src/ui`, type-only imports) and `docs/API.md`. Times are ISO 8601 strings.
 */
import type { SerializedError } from "../core/serde.js";
import type { FormSchema } from "../core/approval-form.js";
import type { WorkflowDiagram } from "../diagram/model.js";
import type { StepKind } from "../store/types.js";
import type { TriggerView } from "../triggers/runtime/list.js";
import type { StepTriggerRow } from "./step-trigger-rows.js";
import type { FileChange, ReleaseRecord, ReleaseSummary } from "../core/release.js";

/** A native trigger with its state (`GET /api/triggers`). */
export type ApiTrigger = TriggerView;

/** A schedule or webhook row of a pipeline step's `pipeline.json` (`GET /api/triggers` `pipelineTriggers`). */
export type ApiStepTrigger = StepTriggerRow;

/** A run's lifecycle status. */
export type ApiRunStatus = "pending" | "running" | "waiting" | "succeeded" | "failed" | "cancelled";

/** A run. */
export interface ApiRun {
  id: string;
  /** Listing order and the list cursor. */
  seq: number;
  workflow: string;
  /** Function of the workflow's module this child run executes (`task(fn)`), else null. */
  task: string | null;
  /** `workflow` or `workflow:task`. */
  name: string;
  status: ApiRunStatus;
  queue: string;
  priority: number;
  attempt: number;
  maxAttempts: number;
  payload: unknown;
  result: unknown;
  error: SerializedError | null;
  parentId: string | null;
  /** The parent's checkpoint key this run resolves. */
  parentKey: string | null;
  rootId: string;
  createdBy: string | null;
  version: string | null;
  /** Children a waiting run still waits for. */
  outstanding: number;
  createdAt: string;
  readyAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
  /** `finishedAt - startedAt`, when both are set. */
  durationMs: number | null;
  /** The W3C trace id of the trace the run belongs to (from its stored `traceparent`), else null. */
  traceId: string | null;
}

/** A checkpoint of a run. */
export interface ApiStep {
  key: string;
  kind: StepKind;
  target: string | null;
  status: "done" | "error" | "pending";
  value: unknown;
  error: SerializedError | null;
  attempts: number;
  childId: string | null;
  event: string | null;
  wakeAt: string | null;
  position: number;
  startedAt: string;
  finishedAt: string | null;
}

/** A pending `waitForApproval` of a run. */
export interface ApiPendingApproval {
  key: string;
  /** The form, normalised (`order` and `required` filled in), or null without one. */
  form: FormSchema | null;
  selfApproval: boolean;
  timeoutSeconds: number;
  deadline: string | null;
}

/** One recorded approval attempt. */
export interface ApiApprovalEvent {
  key: string;
  actor: string | null;
  decision: string;
  outcome: string;
  via: string | null;
  at: string;
}

/** `GET /api/runs/:id`. */
export interface ApiRunDetail {
  run: ApiRun;
  steps: ApiStep[];
  children: ApiRun[];
  /** True when the run has more children than listed. */
  childrenTruncated: boolean;
  approvals: ApiPendingApproval[];
  approvalEvents: ApiApprovalEvent[];
  /** The run's trace: its id and, when the server has a trace URL template (`SLUICE_TRACE_URL`), the link; null without a trace. */
  trace: ApiTraceLink | null;
}

/** A trace id and its link in a trace viewer (null without a configured template). */
export interface ApiTraceLink {
  id: string;
  url: string | null;
}

/** One bucket of the overview charts (`core/overview-buckets.ts`). */
export interface ApiOverviewBucket {
  start: string;
  enqueued: number;
  started: number;
  finished: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Runs enqueued and not yet started at the end of the bucket. */
  queued: number;
}

/** `GET /api/overview?window=1h|1d`. */
export interface ApiOverview {
  window: "1h" | "1d";
  bucketMs: number;
  /** The store's clock when the figures were read. */
  now: string;
  buckets: ApiOverviewBucket[];
  totals: { enqueued: number; finished: number; succeeded: number; failed: number; cancelled: number };
  /** Runs enqueued and not yet started now. */
  queuedNow: number;
  slowest: Array<{ workflow: string; runs: number; meanMs: number; maxMs: number }>;
  approvals: Array<{ runId: string; workflow: string; key: string; since: string; trace: ApiTraceLink | null }>;
}

/** `GET /api/runs`. */
export interface ApiRunList {
  runs: ApiRun[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** A captured log line. */
export interface ApiLogLine {
  seq: number;
  ts: string;
  /** The run that logged it (a child run's id with `children=true`). */
  runId: string;
  attempt: number;
  level: "debug" | "info" | "warn" | "error";
  step: string | null;
  message: string;
}

/** A published workflow. */
export interface ApiWorkflow {
  name: string;
  version: string | null;
  queue: string;
  maxAttempts: number;
  source: string | null;
  schedule: { cron: string; timezone: string } | null;
  /**
   * The named parameters a payload maps onto (workflows as code: TypeScript or Python `main(...)`), `required`
   * being those without a default; null when Sluice cannot name them (a `defineWorkflow` handler's payload type).
   */
  params: { names: string[]; required: string[] } | null;
}

/** A workflow in the list, with its latest top-level run. */
export interface ApiWorkflowSummary extends ApiWorkflow {
  lastRun: ApiRun | null;
}

/** Outcome figures of a workflow's recent top-level runs. */
export interface ApiWorkflowStats {
  /** Finished runs the figures are computed over (the most recent ones, up to a limit). */
  sample: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** `succeeded / (succeeded + failed)`, or null without any. */
  successRate: number | null;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
  /** Runs running or waiting right now (the Runs page's Running and Waiting filters). */
  active: number;
  /** Runs pending and due: waiting for a worker slot. */
  queued: number;
  /** Runs pending until a later time (a `runAt`, a retry's back-off): neither active nor queued yet. */
  scheduled: number;
}

/** `GET /api/workflows/:name`. */
export interface ApiWorkflowDetail {
  workflow: ApiWorkflow;
  stats: ApiWorkflowStats;
  recentRuns: ApiRun[];
}

/** `GET /api/workflows/:name/diagram`. */
export interface ApiDiagram {
  workflow: string;
  file: string;
  source: string;
  diagram: WorkflowDiagram;
  /**
   * A `defineWorkflow`'s payload fields as its source declares them (the type argument or the handler's
   * parameter type, an object type of the same file), `required` those without `?`; else null.
   */
  payloadFields: { names: string[]; required: string[] } | null;
}

/** A cron schedule. */
export interface ApiSchedule {
  workflow: string;
  cron: string;
  timezone: string;
  paused: boolean;
  nextAt: string | null;
  /** The next few fire times (empty when paused). */
  upcoming: string[];
  lastFiredAt: string | null;
  /** Who keeps the schedule: `release` (`sluice deploy`) or `process` (a process's own code and its external workers); a sync replaces only its own owner's. */
  owner: "release" | "process";
}

/** `GET /api/me`. */
export interface ApiMe {
  name: string;
  scope: "metrics" | "read" | "operate" | "worker" | "admin";
  /** `off` in `sluice dev` on loopback, else `tokens`. */
  auth: "off" | "tokens";
}

/** One worker lane (scale to zero): the worker process of one worker group, or of one `sluice.json` worker command. */
export interface ApiLane {
  group: string;
  /** `idle` (no process), `starting` (spawned, no claim yet), `running`, `crashed` (exited with an error before its first claim), `draining`, `stopped`. */
  mode: "idle" | "starting" | "running" | "draining" | "crashed" | "stopped";
  /** The lane's worker process, or null when it has none. */
  pid: number | null;
  /** Processes retired after a code change that are still finishing their runs. */
  draining: number[];
  /** While `crashed`: why (the worker could not be started, or how it exited and its last stderr line); else null. */
  error: string | null;
  /** A `sluice.json` worker command's lane (`group` is `command:<label>`): its command line; null for a worker group's lane. */
  command: string | null;
  /** A worker command's lane: the workflows its processes claim; null until one asked for work, and for a group's lane. */
  workflows: string[] | null;
}

/** `GET /api/lanes`. */
export interface ApiLanes {
  /** False when this process supervises no lanes (`sluice dev` runs its worker in-process, `--workers none`). */
  supervised: boolean;
  /** Every lane that has started a worker since the server started, and every scale-to-zero worker command's, by name. */
  lanes: ApiLane[];
}

/** An API token (its secret only once, at creation). */
export interface ApiToken {
  id: string;
  name: string;
  scope: "metrics" | "read" | "operate" | "worker" | "admin";
  createdAt: string;
}

/** The error body of every non-2xx JSON answer. */
export interface ApiErrorBody {
  error: { code: string; message: string; [extra: string]: unknown };
}

/** A decision on an approval. */
export interface ApiApprovalResult {
  runId: string;
  key: string | null;
  outcome: string;
  approved: boolean;
  actor: string | null;
}

/** A release as listed: `createdAt` in ISO 8601 (null when the stored value is not a date). */
export type ApiReleaseSummary = Omit<ReleaseSummary, "createdAt"> & { createdAt: string | null };

/** `GET /api/releases`: newest first. */
export interface ApiReleaseList {
  current: number | null;
  releases: ApiReleaseSummary[];
}

/** `GET /api/releases/:id`: a release with its manifest. */
export type ApiRelease = Omit<ReleaseRecord, "createdAt"> & { createdAt: string | null };

/** `GET /api/releases/:id/diff`: the files it changed, with both texts (null: none, or over 256 KiB). */
export interface ApiReleaseDiff {
  release: number;
  previous: number | null;
  files: Array<FileChange & { beforeText: string | null; afterText: string | null }>;
}

/** `GET /api/runs/:id/release`: the release whose code a run used (null when not deployed as one). */
export interface ApiRunRelease {
  run: string;
  version: string | null;
  release: number | null;
}

/** Model types the UI needs, re-exported from their modules. */
export type { WorkflowDiagram, FormSchema };
