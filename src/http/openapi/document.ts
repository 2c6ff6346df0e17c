/**
 * The OpenAPI 3.1 document served at `/api/openapi.json`. Each operation names the
 * scope it needs in `x-sluice-scope` (`public`, `link` for signed approval links,
 * `read`, `operate`, `worker`, `admin`); the API tests check that it lists exactly the app's routes.
 */
import { VERSION } from "../../sdk/version.js";
import { PIPELINE_PATHS } from "./pipeline-paths.js";
import { LINEAGE_SCHEMAS } from "./lineage-schemas.js";
import { SCHEMAS } from "./schemas.js";
import { WORKER_PATHS } from "./worker-paths.js";

type Json = Record<string, unknown>;

/** Who may call an operation. */
type OperationScope = "public" | "link" | "metrics" | "read" | "operate" | "worker" | "admin";

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: Json, required = true): Json => ({ required, content: { "application/json": { schema } } });
const TRIGGER_ID = {
  name: "id",
  in: "path",
  required: true,
  description: "trigger id, e.g. orders or f/demo/ingest:mqtt (slashes allowed)",
  schema: { type: "string" },
};
const ok = (description: string, schema: Json, status = "200"): Json => ({
  [status]: { description, content: { "application/json": { schema } } },
});
const err = (...codes: string[]): Json =>
  Object.fromEntries(
    codes.map((c) => [
      c,
      { description: ERROR_TEXT[c] ?? "error", content: { "application/json": { schema: ref("Error") } } },
    ]),
  );
const ERROR_TEXT: Record<string, string> = {
  "400": "invalid input (the message names the field)",
  "401": "no or invalid bearer token",
  "403": "scope too low, forged link, or self-approval refused",
  "404": "not found",
  "409": "conflict: run id reused, run finished, approval already decided, timed out or cancelled, trigger paused",
  "410": "the link has expired",
  "413": "body over 1 MiB",
  "415": "body not sent as application/json",
  "422": "approval form value invalid",
};
const path = (name: string, description: string): Json => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const query = (name: string, description: string, schema: Json = { type: "string" }): Json => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const RUN_ID = path("id", "run id (URL-encoded)");
const KEY = path("key", "the approval's checkpoint key, e.g. waitForApproval");
const CHILDREN = query("children", "true: include the lines of the run's child runs, interleaved", { type: "boolean" });
const TOKEN = {
  name: "token",
  in: "query",
  required: true,
  description: "the signed token of the link",
  schema: { type: "string" },
};
const sse = (description: string): Json => ({
  "200": { description, content: { "text/event-stream": { schema: { type: "string" } } } },
});

function op(scope: OperationScope, summary: string, rest: Json): Json {
  const security = scope === "public" || scope === "link" ? [] : [{ bearer: [] }];
  return { summary, "x-sluice-scope": scope, security, ...rest };
}

const LINK_RESPONSES = { ...ok("decided", ref("ApprovalResult")), ...err("400", "403", "404", "409", "410", "422") };

const PATHS: Record<string, Json> = {
  "/api/health": { get: op("public", "Liveness", { responses: ok("the server answers", { type: "object" }) }) },
  "/api/ready": {
    get: op(
      "public",
      "Readiness: database reachable and migrated, a write commits, scheduler leadership known, no crashed lane",
      {
        responses: {
          ...ok("ready", ref("Readiness")),
          ...ok("not ready: each failed check says why", ref("Readiness"), "503"),
        },
      },
    ),
  },
  "/metrics": {
    get: op("metrics", "Prometheus metrics (text format 0.0.4); see docs/API.md", {
      responses: {
        "200": { description: "the metrics", content: { "text/plain": { schema: { type: "string" } } } },
        ...err("401", "403"),
      },
    }),
  },
  "/api/openapi.json": { get: op("public", "This document", { responses: ok("OpenAPI 3.1", { type: "object" }) }) },
  "/api/me": {
    get: op("read", "The caller's identity and scope", { responses: { ...ok("identity", ref("Me")), ...err("401") } }),
  },
  "/api/triggers": {
    get: op(
      "read",
      "The project's native triggers (MQTT, NATS, …) with their state, last message and last error; its pipeline steps' schedule and webhook rows (pipelineTriggers)",
      {
        responses: { ...ok("the triggers", { type: "object" }), ...err("401", "403") },
      },
    ),
  },
  "/api/triggers/{id}/pause": {
    post: op("operate", "Pauses a trigger: its consumer stops within a tick, messages wait at their source", {
      parameters: [TRIGGER_ID],
      responses: { ...ok("the trigger's pause flag", { type: "object" }), ...err("401", "403", "404") },
    }),
  },
  "/api/triggers/{id}/upload": {
    post: op(
      "operate",
      "Uploads a file to a data_upload trigger: stored in the object store, then a run with its s3:// path (a re-upload of the same bytes finds the same run)",
      {
        parameters: [TRIGGER_ID, { name: "name", in: "query", required: true, schema: { type: "string" } }],
        requestBody: {
          required: true,
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        },
        responses: {
          ...ok("the stored object and the run (200 when the upload was already received)", { type: "object" }),
          "201": {
            description: "stored and enqueued",
            content: { "application/json": { schema: { type: "object" } } },
          },
          ...err("400", "401", "403", "404", "413"),
        },
      },
    ),
  },
  "/api/triggers/{id}/webhook": {
    post: op(
      "operate",
      "Calls a sluice.json webhook row: the body is the message, mapped onto the target's payload (format, args, idFrom); an Idempotency-Key header makes a retried call find its run",
      {
        parameters: [
          TRIGGER_ID,
          { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } },
        ],
        requestBody: { required: false, content: { "application/json": { schema: {} } } },
        responses: {
          ...ok("the run (200: a call with this Idempotency-Key was already received)", { type: "object" }),
          "202": {
            description: "enqueued: { run, deduplicated }",
            content: { "application/json": { schema: { type: "object" } } },
          },
          ...err("400", "401", "403", "404", "409", "413"),
        },
      },
    ),
  },
  "/api/triggers/{id}/resume": {
    post: op("operate", "Resumes a paused trigger", {
      parameters: [TRIGGER_ID],
      responses: { ...ok("the trigger's pause flag", { type: "object" }), ...err("401", "403", "404") },
    }),
  },
  "/api/lanes": {
    get: op(
      "read",
      "This server's worker lanes (scale to zero): one per worker group and per scale-to-zero sluice.json worker command, its mode and process",
      {
        responses: { ...ok("the lanes", ref("Lanes")), ...err("401", "403") },
      },
    ),
  },
  "/api/overview": {
    get: op(
      "read",
      "Overview page: throughput, failures and queue depth per bucket, slowest workflows, waiting approvals",
      {
        parameters: [
          query("window", "1h (60 buckets of a minute, default) or 1d (96 buckets of 15 minutes)", {
            type: "string",
            enum: ["1h", "1d"],
          }),
        ],
        responses: { ...ok("the figures", ref("Overview")), ...err("400", "401", "403") },
      },
    ),
  },
  "/api/runs": {
    get: op("read", "List runs, newest first", {
      parameters: [
        query("status", "comma-separated statuses; Tako's names are accepted too (dead = failed)"),
        query("workflow", "workflow name"),
        query("parent", "only children of this run"),
        query("topLevel", "true: only runs without a parent", { type: "boolean" }),
        query("createdAfter", "ISO time or epoch ms (inclusive)"),
        query("createdBefore", "ISO time or epoch ms (exclusive)"),
        query("limit", "page size, 1–500 (default 50)", { type: "integer" }),
        query("cursor", "nextCursor of the previous page"),
      ],
      responses: { ...ok("a page of runs", ref("RunList")), ...err("400", "401", "403") },
    }),
    post: op("operate", "Enqueue a run", {
      parameters: [
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "used as the run id: a repeat returns the same run",
          schema: { type: "string" },
        },
      ],
      requestBody: jsonBody(ref("EnqueueRequest")),
      responses: {
        ...ok("created", ref("Enqueued"), "201"),
        ...ok("an existing run with this id", ref("Enqueued")),
        ...err("400", "401", "403", "404", "409", "413", "415"),
      },
    }),
  },
  "/api/runs/{id}": {
    get: op("read", "A run with its steps, children, attempts, approvals, result or error", {
      parameters: [RUN_ID],
      responses: { ...ok("the run", ref("RunDetail")), ...err("401", "403", "404") },
    }),
  },
  "/api/runs/{id}/cancel": {
    post: op("operate", "Cancel an unfinished run and its unfinished children", {
      parameters: [RUN_ID],
      requestBody: jsonBody({ type: "object", properties: { reason: { type: "string" } } }, false),
      responses: {
        ...ok("cancelled", { type: "object", properties: { id: { type: "string" }, status: ref("RunStatus") } }),
        ...err("401", "403", "404", "409"),
      },
    }),
  },
  "/api/runs/{id}/retry": {
    post: op("operate", "Give a failed or cancelled run another attempt (finished steps are kept)", {
      parameters: [RUN_ID],
      responses: {
        ...ok("pending again", { type: "object", properties: { id: { type: "string" }, status: ref("RunStatus") } }),
        ...err("401", "403", "404", "409"),
      },
    }),
  },
  "/api/runs/{id}/logs": {
    get: op("read", "Log lines after a cursor", {
      parameters: [RUN_ID, query("after", "seq of the last line you have", { type: "integer" }), CHILDREN],
      responses: { ...ok("log lines", ref("LogPage")), ...err("400", "401", "403", "404") },
    }),
  },
  "/api/runs/{id}/logs/stream": {
    get: op("read", "Log lines as Server-Sent Events (`log`, then `end` when the run finishes)", {
      parameters: [
        RUN_ID,
        query("after", "seq to start after (or the Last-Event-ID header)", { type: "integer" }),
        CHILDREN,
      ],
      responses: {
        ...sse("event stream: `log` events (data: LogLine, id: seq), then one `end` event"),
        ...err("401", "403", "404"),
      },
    }),
  },
  "/api/runs/{id}/approvals/{key}": {
    post: op("operate", "Approve or reject a pending approval as the caller", {
      parameters: [RUN_ID, KEY],
      requestBody: jsonBody(ref("ApprovalDecision")),
      responses: { ...ok("decided", ref("ApprovalResult")), ...err("400", "401", "403", "404", "409", "422") },
    }),
  },
  "/api/runs/{id}/approvals/{key}/resume": {
    post: op(
      "link",
      "Approve through a signed link from getResumeUrls() (`curl -X POST`); an optional JSON body is the form value",
      {
        parameters: [RUN_ID, KEY, TOKEN],
        requestBody: { required: false, content: { "application/json": { schema: {} } } },
        responses: LINK_RESPONSES,
      },
    ),
  },
  "/api/runs/{id}/approvals/{key}/cancel": {
    post: op("link", "Reject through a signed link from getResumeUrls() (`curl -X POST`)", {
      parameters: [RUN_ID, KEY, TOKEN],
      responses: LINK_RESPONSES,
    }),
  },
  "/api/events": {
    get: op("read", "Change notifications as Server-Sent Events (`change` with the run ids that changed)", {
      responses: { ...sse("`ready`, then `change` events"), ...err("401", "403") },
    }),
  },
  "/api/signals": {
    post: op("operate", "Send a signal: wakes the runs waiting on the event", {
      requestBody: jsonBody({
        type: "object",
        properties: {
          event: { type: "string" },
          payload: {},
          buffer: {
            description:
              'keep the signal this long when no run waits on the event ("1h", or milliseconds): the next waitFor takes it',
            oneOf: [{ type: "string" }, { type: "integer", minimum: 0 }],
          },
        },
        required: ["event"],
      }),
      responses: {
        ...ok("how many runs woke, and whether the signal was kept for a later waitFor", {
          type: "object",
          properties: { event: { type: "string" }, woke: { type: "integer" }, buffered: { type: "boolean" } },
        }),
        ...err("400", "401", "403"),
      },
    }),
  },
  "/api/workflows": {
    get: op("read", "Published workflows with their latest run", {
      responses: {
        ...ok("workflows", {
          type: "object",
          properties: { workflows: { type: "array", items: ref("WorkflowSummary") } },
        }),
        ...err("401", "403"),
      },
    }),
  },
  "/api/workflows/{name}": {
    get: op("read", "A workflow: success rate, p50/p95 duration, recent runs", {
      parameters: [path("name", "workflow name (URL-encoded: f%2Fwac%2Fcomplete)")],
      responses: { ...ok("the workflow", ref("WorkflowDetail")), ...err("401", "403", "404") },
    }),
  },
  "/api/workflows/{name}/diagram": {
    get: op("read", "The workflow's DAG, parsed from its source", {
      parameters: [path("name", "workflow name (URL-encoded)")],
      responses: { ...ok("the diagram", ref("Diagram")), ...err("401", "403", "404", "422") },
    }),
  },
  "/api/releases": {
    get: op("read", "Releases published by `sluice deploy`, newest first: who, when, what changed", {
      responses: { ...ok("releases", ref("ReleaseList")), ...err("401", "403") },
    }),
  },
  "/api/releases/{id}": {
    get: op("read", "One release with its manifest (files by hash, modules, workflows, pipelines)", {
      parameters: [path("id", "release number")],
      responses: { ...ok("the release", ref("Release")), ...err("401", "403", "404") },
    }),
  },
  "/api/releases/{id}/diff": {
    get: op("read", "The files a release added, changed or removed against the release before it, with both texts", {
      parameters: [path("id", "release number")],
      responses: { ...ok("the release's file changes", { type: "object" }), ...err("401", "403", "404") },
    }),
  },
  "/api/runs/{id}/release": {
    get: op("read", "Which release's code a run used (null when not deployed as a release)", {
      parameters: [path("id", "run id")],
      responses: { ...ok("the run's release", { type: "object" }), ...err("401", "403", "404") },
    }),
  },
  "/api/schedules": {
    get: op("read", "Cron schedules with their next fire times", {
      responses: {
        ...ok("schedules", { type: "object", properties: { schedules: { type: "array", items: ref("Schedule") } } }),
        ...err("401", "403"),
      },
    }),
  },
  "/api/schedules/{workflow}/pause": {
    post: op("operate", "Pause a schedule", {
      parameters: [path("workflow", "workflow name (URL-encoded)")],
      responses: {
        ...ok("paused", { type: "object", properties: { schedule: ref("Schedule") } }),
        ...err("401", "403", "404"),
      },
    }),
  },
  "/api/schedules/{workflow}/resume": {
    post: op("operate", "Resume a paused schedule", {
      parameters: [path("workflow", "workflow name (URL-encoded)")],
      responses: {
        ...ok("resumed", { type: "object", properties: { schedule: ref("Schedule") } }),
        ...err("401", "403", "404"),
      },
    }),
  },
  "/api/tokens": {
    get: op("admin", "API tokens (never their secrets)", {
      responses: {
        ...ok("tokens", { type: "object", properties: { tokens: { type: "array", items: ref("Token") } } }),
        ...err("401", "403"),
      },
    }),
    post: op("admin", "Create a token; its secret is returned once", {
      requestBody: jsonBody({
        type: "object",
        properties: {
          name: { type: "string" },
          scope: { type: "string", enum: ["metrics", "read", "operate", "worker", "admin"] },
        },
        required: ["name", "scope"],
      }),
      responses: {
        ...ok("created", { type: "object", properties: { token: { type: "string" }, info: ref("Token") } }, "201"),
        ...err("400", "401", "403"),
      },
    }),
  },
  "/api/tokens/{id}": {
    delete: op("admin", "Revoke a token", {
      parameters: [path("id", "token id")],
      responses: {
        ...ok("revoked", { type: "object", properties: { id: { type: "string" }, revoked: { type: "boolean" } } }),
        ...err("401", "403", "404"),
      },
    }),
  },
  "/approve/{id}/{key}": {
    get: op("link", "The approval page (HTML): the run's context and the approval form", {
      parameters: [RUN_ID, KEY, TOKEN],
      responses: {
        "200": { description: "the page", content: { "text/html": { schema: { type: "string" } } } },
        "403": { description: "forged link" },
        "410": { description: "expired link" },
      },
    }),
    post: op(
      "link",
      "Decide from the approval page's form (application/x-www-form-urlencoded: decision=approve|reject, f.<field>=…)",
      {
        parameters: [RUN_ID, KEY, TOKEN],
        responses: {
          "200": { description: "decided (HTML)" },
          "403": { description: "self-approval refused or forged link" },
          "409": { description: "already decided, timed out, or the run was cancelled" },
          "422": { description: "invalid form value" },
        },
      },
    ),
  },
};

/** The document. */
export function openApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Sluice API",
      version: VERSION,
      description:
        "Durable workflows over HTTP. Send `Authorization: Bearer <token>` (create one with `sluice token create --name <you> --scope metrics|read|operate|worker|admin`); `sluice dev` on loopback needs none. Bodies are JSON, at most 1 MiB, nested at most 64 deep, without `__proto__`/`constructor`/`prototype` keys. See docs/API.md.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { ...SCHEMAS, ...LINEAGE_SCHEMAS },
    },
    paths: { ...PATHS, ...PIPELINE_PATHS, ...WORKER_PATHS },
  };
}
