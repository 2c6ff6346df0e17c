/** Component schemas of the OpenAPI document (the shapes of `api-types.ts`). */

import { RUN_STATUSES } from "../../core/run-status.js";

type Schema = Record<string, unknown>;

const str = (description?: string): Schema => (description ? { type: "string", description } : { type: "string" });
const time = (description?: string): Schema => ({
  type: "string",
  format: "date-time",
  ...(description ? { description } : {}),
});
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });
const int = (description?: string): Schema => (description ? { type: "integer", description } : { type: "integer" });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: "object",
  properties,
  required,
});
const any: Schema = { description: "any JSON value" };

const RUN_STATUS = { type: "string", enum: [...RUN_STATUSES] };

/** `components.schemas`. */
export const SCHEMAS: Record<string, Schema> = {
  Error: obj({
    error: obj(
      {
        code: str("stable machine-readable code, e.g. RUN_NOT_FOUND, AUTH_SCOPE, APPROVAL_ALREADY_DECIDED"),
        message: str("what went wrong and what to do"),
        outcome: str("approval refusals: the decision's outcome"),
        problems: { type: "array", items: str(), description: "approval refusals: form problems" },
      },
      ["code", "message"],
    ),
  }),
  SerializedError: obj(
    { name: str(), message: str(), code: str(), stack: str(), cause: ref("SerializedError"), data: { type: "object" } },
    ["name", "message"],
  ),
  RunStatus: RUN_STATUS,
  Run: obj({
    id: str(),
    seq: int("listing order; the list cursor"),
    workflow: str(),
    task: nullable(str("function of the module this child run executes")),
    name: str("workflow or workflow:task"),
    status: ref("RunStatus"),
    queue: str("worker group"),
    priority: int(),
    attempt: int("1-based current or last attempt"),
    maxAttempts: int(),
    payload: any,
    result: any,
    error: nullable(ref("SerializedError")),
    parentId: nullable(str()),
    parentKey: nullable(str("the parent's checkpoint key this run resolves")),
    rootId: str(),
    createdBy: nullable(str("identity that started the run")),
    version: nullable(str("code version (bundle hash)")),
    outstanding: int("children a waiting run still waits for"),
    createdAt: time(),
    readyAt: nullable(time()),
    startedAt: nullable(time()),
    finishedAt: nullable(time()),
    updatedAt: time(),
    durationMs: nullable(int()),
    traceId: nullable(str("W3C trace id of the run's trace (from the traceparent stored at enqueue)")),
  }),
  TraceLink: obj({
    id: str("W3C trace id (32 hex digits)"),
    url: nullable(str("link in the trace viewer (SLUICE_TRACE_URL with {traceId} filled in); null without one")),
  }),
  OverviewBucket: obj({
    start: time("start of the bucket"),
    enqueued: int("runs created"),
    started: int("runs claimed for the first time"),
    finished: int("runs that finished (succeeded + failed + cancelled): the throughput"),
    succeeded: int(),
    failed: int(),
    cancelled: int(),
    queued: int("runs enqueued and not yet started at the end of the bucket"),
  }),
  Overview: obj({
    window: { type: "string", enum: ["1h", "1d"] },
    bucketMs: int("width of a bucket: 60000 (1h) or 900000 (1d)"),
    now: time("the store's clock when read"),
    buckets: {
      type: "array",
      items: ref("OverviewBucket"),
      description: "oldest first; the last one is still filling",
    },
    totals: obj({ enqueued: int(), finished: int(), succeeded: int(), failed: int(), cancelled: int() }),
    queuedNow: int("runs enqueued and not yet started now"),
    slowest: {
      type: "array",
      description: "workflows with runs finished in the window, slowest mean first-start-to-finish first (at most 10)",
      items: obj({ workflow: str(), runs: int(), meanMs: int(), maxMs: int() }),
    },
    approvals: {
      type: "array",
      description: "undecided approvals of waiting runs, longest waiting first (at most 50)",
      items: obj({ runId: str(), workflow: str(), key: str(), since: time(), trace: nullable(ref("TraceLink")) }),
    },
  }),
  Step: obj({
    key: str("checkpoint key"),
    kind: { type: "string", enum: ["step", "sleep", "wait", "task", "approval", "asset"] },
    target: nullable(str()),
    status: { type: "string", enum: ["done", "error", "pending"] },
    value: any,
    error: nullable(ref("SerializedError")),
    attempts: int(),
    childId: nullable(str()),
    event: nullable(str()),
    wakeAt: nullable(time("wake time of a sleep, deadline of a wait or approval")),
    position: int(),
    startedAt: time(),
    finishedAt: nullable(time()),
  }),
  FormSchema: obj({
    type: { type: "string", enum: ["object"] },
    properties: { type: "object", additionalProperties: { type: "object" } },
    required: { type: "array", items: str() },
    order: { type: "array", items: str() },
  }),
  PendingApproval: obj({
    key: str(),
    form: nullable(ref("FormSchema")),
    selfApproval: { type: "boolean" },
    timeoutSeconds: { type: "number" },
    deadline: nullable(time()),
  }),
  ApprovalEvent: obj({
    key: str(),
    actor: nullable(str()),
    decision: { type: "string", enum: ["approve", "reject"] },
    outcome: str("resolved, forbidden, already-decided, expired, not-waiting, not-found"),
    via: nullable(str("api, link, page, cli")),
    at: time(),
  }),
  RunDetail: obj({
    run: ref("Run"),
    steps: { type: "array", items: ref("Step") },
    children: { type: "array", items: ref("Run") },
    childrenTruncated: { type: "boolean" },
    approvals: { type: "array", items: ref("PendingApproval") },
    approvalEvents: { type: "array", items: ref("ApprovalEvent") },
    trace: nullable(ref("TraceLink")),
  }),
  RunList: obj({
    runs: { type: "array", items: ref("Run") },
    nextCursor: nullable(str("pass as cursor for the next page")),
  }),
  EnqueueRequest: obj(
    {
      workflow: str("workflow name (or path for workflows as code)"),
      payload: any,
      id: str("run id: the same id with the same workflow and payload returns the existing run"),
      runAt: { description: "do not start before: ISO time or epoch ms", anyOf: [str(), int()] },
      retries: int("retries after the first attempt"),
      priority: int("higher is claimed first"),
      concurrency: obj(
        {
          key: str("runs sharing this key are limited together (any workflow, any worker)"),
          limit: int("at most this many of them run at once"),
          windowMs: int("and at most `limit` start within any window of this length"),
        },
        ["key", "limit"],
      ),
    },
    ["workflow"],
  ),
  Enqueued: obj({ run: ref("Run"), deduplicated: { type: "boolean" } }),
  LogLine: obj({
    seq: int(),
    ts: time(),
    runId: str("the run that logged it (a child's id with children=true)"),
    attempt: int(),
    level: { type: "string", enum: ["debug", "info", "warn", "error"] },
    step: nullable(str("step key the line was logged in")),
    message: str(),
  }),
  LogPage: obj({ logs: { type: "array", items: ref("LogLine") }, nextAfter: int(), finished: { type: "boolean" } }),
  ApprovalDecision: obj({ approve: { type: "boolean" }, value: { description: "form data (approvals only)" } }, [
    "approve",
  ]),
  ApprovalResult: obj({
    runId: str(),
    key: nullable(str()),
    outcome: str(),
    approved: { type: "boolean" },
    actor: nullable(str()),
  }),
  Workflow: obj({
    name: str(),
    version: nullable(str()),
    queue: str(),
    maxAttempts: int(),
    source: nullable(str("source file, relative to the project")),
    schedule: nullable(obj({ cron: str(), timezone: str() })),
    params: nullable(
      obj({
        names: { type: "array", items: str(), description: "parameters a payload object names (main(...))" },
        required: { type: "array", items: str(), description: "those without a default" },
      }),
    ),
  }),
  WorkflowSummary: { allOf: [ref("Workflow"), obj({ lastRun: nullable(ref("Run")) })] },
  WorkflowStats: obj({
    sample: int("finished runs the figures are computed over"),
    succeeded: int(),
    failed: int(),
    cancelled: int(),
    successRate: nullable({ type: "number" }),
    p50DurationMs: nullable(int()),
    p95DurationMs: nullable(int()),
    active: int("runs running or waiting now"),
    queued: int("runs pending and due now"),
    scheduled: int("runs pending until a later time (runAt, a retry's back-off)"),
  }),
  WorkflowDetail: obj({
    workflow: ref("Workflow"),
    stats: ref("WorkflowStats"),
    recentRuns: { type: "array", items: ref("Run") },
  }),
  Diagram: obj({
    workflow: str(),
    file: str(),
    source: str(),
    diagram: { type: "object", description: "nodes and edges of the workflow DAG (src/diagram/README.md)" },
    payloadFields: nullable(
      obj({
        names: { type: "array", items: str(), description: "a defineWorkflow's payload fields, from its source" },
        required: { type: "array", items: str(), description: "those not marked optional" },
      }),
    ),
  }),
  ReleaseSummary: obj({
    id: int("release number"),
    createdAt: nullable(time("when it was published")),
    createdBy: nullable(str("who published it (SLUICE_USER, else the OS user)")),
    rollbackOf: nullable(int("the release whose code it republished (sluice deploy --rollback)")),
    changes: obj(
      Object.fromEntries(
        ["workflows", "schedules", "triggers", "files"].map((kind) => [
          kind,
          obj({
            added: { type: "array", items: str() },
            changed: { type: "array", items: str() },
            removed: { type: "array", items: str() },
          }),
        ]),
      ),
    ),
  }),
  ReleaseList: obj({ current: nullable(int()), releases: { type: "array", items: ref("ReleaseSummary") } }),
  Release: {
    allOf: [
      ref("ReleaseSummary"),
      obj({ manifest: { type: "object", description: "files by hash, modules, workflows, pipelines, triggers" } }),
    ],
  },
  Schedule: obj({
    workflow: str(),
    cron: str(),
    timezone: str(),
    paused: { type: "boolean" },
    nextAt: nullable(time()),
    upcoming: { type: "array", items: time() },
    lastFiredAt: nullable(time()),
    owner: { type: "string", enum: ["release", "process"] },
  }),
  Readiness: obj({
    ready: { type: "boolean" },
    checks: obj(
      Object.fromEntries(
        ["database", "write", "scheduler", "lanes", "workers"].map((name) => [
          name,
          obj({ ok: { type: "boolean" }, detail: str("what was found, or why the check failed") }),
        ]),
      ),
    ),
  }),
  Me: obj({
    name: str(),
    scope: { type: "string", enum: ["metrics", "read", "operate", "worker", "admin"] },
    auth: { type: "string", enum: ["off", "tokens"] },
  }),
  Lanes: obj({
    supervised: {
      type: "boolean",
      description: "false: this process supervises no lanes (workers in-process or none)",
    },
    lanes: {
      type: "array",
      items: obj({
        group: str(),
        mode: { type: "string", enum: ["idle", "starting", "running", "draining", "crashed", "stopped"] },
        pid: { type: ["integer", "null"] },
        draining: { type: "array", items: { type: "integer" } },
        error: {
          type: ["string", "null"],
          description: "while crashed: why (the worker could not be started, or its exit and last stderr line)",
        },
        command: {
          type: ["string", "null"],
          description:
            "a sluice.json worker command's lane (group command:<label>): its command line; null for a group's",
        },
        workflows: {
          type: ["array", "null"],
          items: str(),
          description: "a worker command's lane: the workflows its processes claim (null until one asked for work)",
        },
      }),
    },
  }),
  Token: obj({
    id: str(),
    name: str(),
    scope: { type: "string", enum: ["metrics", "read", "operate", "worker", "admin"] },
    createdAt: time(),
  }),
};
