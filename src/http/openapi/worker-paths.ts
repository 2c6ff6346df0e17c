/** OpenAPI paths of the worker protocol (`routes/worker-protocol.ts`, docs/PROTOCOL.md). */

type Json = Record<string, unknown>;

const op = (summary: string, rest: Json): Json => ({
  summary,
  "x-sluice-scope": "worker",
  security: [{ bearer: [] }],
  ...rest,
});
const error = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const ok = (description: string, schema: Json): Json => ({
  "200": { description, content: { "application/json": { schema } } },
});
const ERRORS: Record<string, string> = {
  "400": "invalid body (the message names the field)",
  "401": "no or invalid bearer token",
  "403": "the token's scope is below worker",
  "404": "no such run",
  "409": "LEASE_LOST: the fencing token is not the run's current claim; nothing was written",
  "413": "body or value over the size limit",
};
const errors = (...codes: string[]): Json =>
  Object.fromEntries(codes.map((c) => [c, { description: ERRORS[c], ...error }]));
const body = (schema: Json): Json => ({ required: true, content: { "application/json": { schema } } });
const RUN_ID = {
  name: "id",
  in: "path",
  required: true,
  description: "run id (URL-encoded)",
  schema: { type: "string" },
};
const int = { type: "integer" };
const str = { type: "string" };
const obj = (properties: Json, required: string[] = []): Json => ({ type: "object", properties, required });
const STEP_WRITE = obj(
  {
    key: str,
    kind: { type: "string", enum: ["step", "sleep", "wait", "approval"] },
    status: { type: "string", enum: ["done", "pending"] },
    position: int,
    value: {
      description:
        "any JSON value (the step's result, a wait's signal payload); a pending approval: {form?, selfApproval?, timeout} (seconds)",
    },
    event: str,
    wakeAfterMs: int,
    attempts: int,
    startedAt: int,
  },
  ["key", "kind", "status", "position"],
);
const JOURNAL_ENTRY = obj({
  key: str,
  kind: { type: "string", enum: ["step", "sleep", "wait", "task", "approval"] },
  status: { type: "string", enum: ["done", "pending", "error"] },
  value: {},
  error: {
    description: "a failed or cancelled child's serialized error",
    anyOf: [obj({ name: str, message: str, code: str }, ["message"]), { type: "null" }],
  },
  target: { type: ["string", "null"], description: "what a task step's key pointed at: the task or workflow name" },
  childId: { type: ["string", "null"], description: "a task step's child run (or the cached run that answered it)" },
  event: { type: ["string", "null"] },
  wakeAt: { type: ["integer", "null"] },
  attempts: int,
  position: int,
});
const CLAIM = obj({
  runId: str,
  token: { type: "integer", description: "fencing token: send it with every write of this claim" },
  workflow: str,
  payload: {},
  attempt: int,
  maxAttempts: int,
  claimedAt: { type: "integer", description: "store clock, epoch ms" },
  dueAt: {
    type: "integer",
    description: "when the run became due, store clock, epoch ms: claimedAt - dueAt is its time in the queue",
  },
  leaseMs: int,
  task: { type: ["string", "null"], description: "a task child: the function of `workflow` to run" },
  version: { type: ["string", "null"], description: "the code version the run is pinned to" },
  deadline: { type: "integer", description: "a task with a timeout: fail it at this store-clock time (epoch ms)" },
  timeoutMs: { type: "integer", description: "that task's timeout" },
  steps: { type: "array", items: JOURNAL_ENTRY },
});
const CHILD = obj(
  {
    key: str,
    position: int,
    workflow: { type: "string", description: "a registered workflow (required unless task is given)" },
    task: {
      type: "string",
      description: "a function of the parent's own workflow, run as its child pinned to the parent's version",
    },
    payload: {},
    group: str,
    maxAttempts: int,
    concurrency: obj({ key: str, limit: int, windowMs: int }, ["key", "limit"]),
    priority: { type: "integer", description: "higher is claimed first (default 0)" },
    timeoutMs: { type: "integer", minimum: 1, description: "the child fails once it has run this long" },
    cacheTtlMs: {
      type: "integer",
      minimum: 1,
      description: "a run of the same task/workflow and payload that succeeded within this long answers at once",
    },
    target: {
      type: "string",
      maxLength: 512,
      description:
        "what the parent's journal records the call as (checked on replay); default the task's or workflow's name",
    },
  },
  ["key", "position"],
);
const TOKEN = { token: { type: "integer", description: "the claim's fencing token" } };

/** The worker protocol paths (scope `worker`). */
export const WORKER_PATHS: Record<string, Json> = {
  "/api/worker/workflows": {
    post: op("Register the workflows an external worker serves (idempotent upsert)", {
      requestBody: body(
        obj(
          {
            workflows: {
              type: "array",
              items: obj(
                {
                  name: str,
                  group: str,
                  maxAttempts: int,
                  backoff: obj({ base: int, max: int }),
                  schedule: { anyOf: [str, obj({ cron: str, timezone: str }, ["cron"])] },
                  version: { type: "string", description: "the worker's code version (a build or commit id)" },
                },
                ["name"],
              ),
            },
          },
          ["workflows"],
        ),
      ),
      responses: {
        ...ok("registered", obj({ registered: { type: "array", items: str } })),
        ...errors("400", "401", "403"),
      },
    }),
  },
  "/api/worker/claim": {
    post: op("Claim runnable runs (long-poll up to waitMs)", {
      requestBody: body(
        obj(
          {
            workerId: str,
            workflows: { type: "array", items: str },
            groups: { type: "array", items: str },
            limit: int,
            leaseMs: int,
            waitMs: int,
            version: { type: "string", description: "only runs not yet pinned or pinned to this code version" },
          },
          ["workerId", "workflows"],
        ),
      ),
      responses: {
        ...ok("claims (empty when none arrived within waitMs)", obj({ claims: { type: "array", items: CLAIM } })),
        ...errors("400", "401", "403"),
      },
    }),
  },
  "/api/worker/heartbeat": {
    post: op("Extend the leases of running claims", {
      requestBody: body(
        obj({ leases: { type: "array", items: obj({ runId: str, token: int }, ["runId", "token"]) }, leaseMs: int }, [
          "leases",
        ]),
      ),
      responses: {
        ...ok("runs whose lease is gone: stop working on them", obj({ lost: { type: "array", items: str } })),
        ...errors("400", "401", "403"),
      },
    }),
  },
  "/api/worker/runs/{id}/steps": {
    post: op("Checkpoint steps of a claim (insert or replace by key)", {
      parameters: [RUN_ID],
      requestBody: body(obj({ ...TOKEN, steps: { type: "array", items: STEP_WRITE } }, ["token", "steps"])),
      responses: {
        ...ok("saved", obj({ saved: { type: "array", items: str } })),
        ...errors("400", "401", "403", "409", "413"),
      },
    }),
  },
  "/api/worker/runs/{id}/children": {
    post: op("Create child runs of a claim without parking it: the first parts of a fan-out too large for one park", {
      parameters: [RUN_ID],
      requestBody: body(
        obj({ ...TOKEN, children: { type: "array", minItems: 1, items: CHILD } }, ["token", "children"]),
      ),
      responses: {
        ...ok("created (their pending task steps are written)", obj({ created: { type: "array", items: str } })),
        ...errors("400", "401", "403", "404", "409", "413"),
      },
    }),
  },
  "/api/worker/runs/{id}/park": {
    post: op(
      "Park a claim (sleep, wait for a signal, child runs): write pending steps, release the run until it wakes",
      {
        parameters: [RUN_ID],
        requestBody: body(
          obj(
            {
              ...TOKEN,
              steps: { type: "array", items: STEP_WRITE },
              wakeAfterMs: { type: ["integer", "null"] },
              children: { type: "array", items: CHILD },
              awaitChildren: { type: "boolean", description: "wake when all the run's children are finished" },
            },
            ["token"],
          ),
        ),
        responses: {
          ...ok("parked", obj({ status: { type: "string", enum: ["waiting"] } })),
          ...errors("400", "401", "403", "409"),
        },
      },
    ),
  },
  "/api/worker/runs/{id}/finish": {
    post: op("End a claim: succeeded, failed, cancelled, or retry (the engine applies attempts and backoff)", {
      parameters: [RUN_ID],
      requestBody: body(
        obj(
          {
            ...TOKEN,
            outcome: { type: "string", enum: ["succeeded", "failed", "cancelled", "retry"] },
            result: {},
            error: obj({ message: str, name: str, code: str, stack: str }),
            reason: str,
          },
          ["token", "outcome"],
        ),
      ),
      responses: {
        ...ok("the run's status afterwards", obj({ status: str, retryInMs: int })),
        ...errors("400", "401", "403", "404", "409", "413"),
      },
    }),
  },
  "/api/worker/batch": {
    post: op("Many fenced writes of many claims in one request and one commit; each answered on its own, in order", {
      requestBody: body(
        obj(
          {
            writes: {
              type: "array",
              minItems: 1,
              maxItems: 1000,
              items: obj(
                {
                  op: { type: "string", enum: ["steps", "children", "park", "finish", "logs"] },
                  runId: str,
                  body: { type: "object", description: "the body of POST /api/worker/runs/{runId}/{op}" },
                },
                ["op", "runId", "body"],
              ),
            },
          },
          ["writes"],
        ),
      ),
      responses: {
        ...ok(
          "one result per write, in order: the status and body its own route would have answered",
          obj({
            results: {
              type: "array",
              items: obj({ status: int, body: { type: "object" } }, ["status", "body"]),
            },
          }),
        ),
        ...errors("400", "401", "403", "413"),
      },
    }),
  },
  "/api/worker/runs/{id}/logs": {
    post: op("Append log lines of a claim (lines of a stale claim are dropped)", {
      parameters: [RUN_ID],
      requestBody: body(
        obj(
          {
            ...TOKEN,
            attempt: int,
            lines: {
              type: "array",
              items: obj(
                {
                  level: str,
                  message: str,
                  stepKey: str,
                  ts: {
                    type: "integer",
                    description:
                      "when the line was logged (epoch ms, the claim's clock; at most 60 s ahead of the server's); default: when the server receives it",
                  },
                },
                ["message"],
              ),
            },
          },
          ["token", "lines"],
        ),
      ),
      responses: {
        ...ok(
          "accepted (lines refused for their own fields are listed in refused; the others are stored)",
          obj({
            accepted: int,
            refused: {
              type: "array",
              items: obj({ line: int, code: str, message: str }, ["line", "code", "message"]),
            },
          }),
        ),
        ...errors("400", "401", "403"),
      },
    }),
  },
  "/api/worker/runs/{id}/resume-urls": {
    post: op("Signed resume links (approval page, approve, reject) of an approval wait of a claimed run", {
      parameters: [RUN_ID],
      requestBody: body(
        obj(
          {
            ...TOKEN,
            key: {
              type: "string",
              description: "the approval wait's key: waitForApproval (default) or waitForApproval#n",
            },
            approver: { type: "string", description: "only this approver may use the links" },
          },
          ["token"],
        ),
      ),
      responses: {
        ...ok(
          "links, valid 30 days",
          obj({ approvalPage: str, resume: str, cancel: str }, ["approvalPage", "resume", "cancel"]),
        ),
        ...errors("400", "401", "403", "409"),
      },
    }),
  },
  "/api/worker/code": {
    post: op(
      "The stored code of a code version (a project file's bundle, by hash), for a worker that runs project files",
      {
        requestBody: body(
          obj({ version: { type: "string", description: "the code version (content hash)" } }, ["version"]),
        ),
        responses: {
          ...ok("the version's code", obj({ version: str, code: str }, ["version", "code"])),
          ...errors("400", "401", "403", "404"),
        },
      },
    ),
  },
  "/api/worker/runs/{id}/asset": {
    post: op(
      "An asset helper (write_s3_file, get_resource, datatable, …) of a claim's code, on the project's asset storage",
      {
        parameters: [RUN_ID],
        requestBody: body(
          obj(
            {
              ...TOKEN,
              op: {
                type: "string",
                description: "the helper: write_s3_file, load_s3_file, get_resource, set_resource, …",
              },
              args: { type: "object", description: "its arguments (bytes as base64)" },
            },
            ["token", "op"],
          ),
        ),
        responses: {
          ...ok(
            "the helper's value, or its own error",
            obj({ ok: { type: "boolean" }, value: {}, error: obj({ code: str, message: str }) }, ["ok"]),
          ),
          ...errors("400", "401", "403", "409"),
        },
      },
    ),
  },
};
