/** OpenAPI paths of the pipeline routes (`routes/pipelines.ts`, `routes/lake-tables.ts`, seed 001). */

type Json = Record<string, unknown>;

const op = (scope: "read" | "operate", summary: string, rest: Json): Json => ({
  summary,
  "x-sluice-scope": scope,
  security: [{ bearer: [] }],
  ...rest,
});
const error = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const ok = (status: string, description: string): Json => ({
  [status]: { description, content: { "application/json": { schema: { type: "object" } } } },
});
const okSchema = (status: string, description: string, schema: Json): Json => ({
  [status]: { description, content: { "application/json": { schema } } },
});
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const errors = (...codes: string[]): Json =>
  Object.fromEntries(
    codes.map((c) => [
      c,
      {
        description:
          c === "404"
            ? "no pipelines attached, or no such folder or script"
            : c === "409"
              ? "the pipeline has errors"
              : "see the error code",
        ...error,
      },
    ]),
  );
const body = (schema: Json, required = true): Json => ({ required, content: { "application/json": { schema } } });
const SCRIPT = {
  name: "script",
  in: "path",
  required: true,
  description: "script path inside the project, e.g. f/demo/extract.py (slashes allowed)",
  schema: { type: "string" },
};

const LAKE_URI = {
  name: "uri",
  in: "query",
  required: true,
  description: "the table, ducklake://<lake>/<table>",
  schema: { type: "string" },
};

/** The pipeline paths. */
export const PIPELINE_PATHS: Record<string, Json> = {
  "/api/pipelines": {
    get: op(
      "read",
      "Every pipeline folder's lineage graph with diagnostics and the column lineage of its lake writes",
      {
        responses: {
          ...okSchema("200", "pipelines", {
            type: "object",
            properties: { pipelines: { type: "array", items: ref("PipelineGraph") } },
            required: ["pipelines"],
          }),
          ...errors("401", "403", "404"),
        },
      },
    ),
  },
  "/api/pipelines/status": {
    get: op("read", "Last runs, open joins and debounce windows, partitions per asset, recent dispatch decisions", {
      parameters: [
        {
          name: "folder",
          in: "query",
          required: false,
          description: "one pipeline folder, e.g. f/demo",
          schema: { type: "string" },
        },
        {
          name: "decisionKind",
          in: "query",
          required: false,
          description: "only decisions of these kinds, comma-separated (dispatched, skipped, join-fired, …)",
          schema: { type: "string" },
        },
        {
          name: "decisionRun",
          in: "query",
          required: false,
          description: "only decisions of this run (as producer, or the run started)",
          schema: { type: "string" },
        },
      ],
      responses: { ...ok("200", "status"), ...errors("400", "401", "403", "404") },
    }),
  },
  "/api/pipelines/backfills": {
    get: op("read", "Recent backfills (newest first, at most 20) with their per-partition progress", {
      parameters: [
        {
          name: "folder",
          in: "query",
          required: false,
          description: "only the backfills of this pipeline folder, e.g. f/demo",
          schema: { type: "string" },
        },
      ],
      responses: { ...ok("200", "backfills"), ...errors("401", "403") },
    }),
  },
  "/api/pipelines/backfills/{id}": {
    get: op("read", "One backfill: its status and the state of every partition", {
      parameters: [
        { name: "id", in: "path", required: true, description: "backfill run id", schema: { type: "string" } },
      ],
      responses: { ...ok("200", "the backfill"), ...errors("401", "403", "404") },
    }),
  },
  "/api/pipelines/backfills/{id}/cancel": {
    post: op(
      "operate",
      "Cancel a backfill gracefully: no new step starts, running steps finish, then it and its unfinished partitions are cancelled (in the background)",
      {
        parameters: [
          { name: "id", in: "path", required: true, description: "backfill run id", schema: { type: "string" } },
        ],
        responses: {
          ...ok("202", "cancelling: {id, cancelling, status}"),
          ...errors("401", "403", "404", "409"),
        },
      },
    ),
  },
  "/api/pipelines/backfills/{id}/resume": {
    post: op(
      "operate",
      "Resume a failed or cancelled backfill: a new backfill of the same partitions that skips what already succeeded",
      {
        parameters: [
          { name: "id", in: "path", required: true, description: "backfill run id", schema: { type: "string" } },
        ],
        responses: {
          ...ok("202", "the new backfill: {id, resumeOf}"),
          ...errors("401", "403", "404", "409"),
        },
      },
    ),
  },
  "/api/pipelines/plan": {
    post: op("operate", "A selective run (run up to here, or from a step) as a durable plan run", {
      requestBody: body({
        type: "object",
        properties: {
          folder: { type: "string" },
          to: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
          from: { type: "string" },
          partition: { type: "string" },
          dryRun: { type: "boolean" },
        },
        required: ["folder"],
      }),
      responses: {
        ...ok("202", "the plan and its run id (null with dryRun)"),
        ...ok("200", "dry run: the plan only"),
        ...errors("400", "401", "403", "404", "409"),
      },
    }),
  },
  "/api/pipelines/scripts/{script}/run": {
    post: op("operate", "Run one pipeline step, with its downstream unless cascade is false", {
      parameters: [SCRIPT],
      requestBody: body(
        {
          type: "object",
          properties: { args: { type: "object" }, partition: { type: "string" }, cascade: { type: "boolean" } },
        },
        false,
      ),
      responses: { ...ok("202", "the run id"), ...errors("400", "401", "403", "404") },
    }),
  },
  "/api/pipelines/webhook/{script}": {
    post: op("operate", "A script's webhook (`// on webhook`): the JSON body is its arguments and trigger object", {
      parameters: [SCRIPT],
      requestBody: body({ type: "object" }, false),
      responses: { ...ok("202", "the run id"), ...errors("400", "401", "403", "404") },
    }),
  },
  "/api/lake/table": {
    get: op(
      "read",
      "A materialized lake table: written partitions, captured schema versions, column lineage, snapshots that touched it",
      {
        parameters: [
          LAKE_URI,
          {
            name: "snapshot",
            in: "query",
            required: false,
            description: "the lineage as of this snapshot id (default: latest)",
            schema: { type: "integer" },
          },
        ],
        responses: {
          ...okSchema("200", "the table's detail", {
            type: "object",
            properties: {
              uri: { type: "string" },
              lake: { type: "string" },
              table: { type: "string" },
              partitions: { type: "array", items: { type: "object" } },
              schema: { type: "array", items: { type: "object" } },
              lineage: {
                anyOf: [ref("LineageRecord"), { type: "null" }],
                description: "the column lineage as of ?snapshot= (latest without it); null when none recorded",
              },
              lineage_history: {
                type: "array",
                items: ref("LineageRecord"),
                description: "every lineage version, oldest snapshot first",
              },
              static_lineage: {
                anyOf: [
                  {
                    allOf: [
                      ref("EdgeLineage"),
                      { type: "object", properties: { script: { type: "string" } }, required: ["script"] },
                    ],
                  },
                  { type: "null" },
                ],
                description:
                  "before any write recorded lineage: what the pipeline graph shows on the write edge into the table (source static: inferred from the loaded script's SQL without running it; annotations: its // column lines), with the script; null once lineage is recorded or when no loaded script writes the table",
              },
              snapshots: { type: "array", items: { type: "object" } },
            },
            required: [
              "uri",
              "lake",
              "table",
              "partitions",
              "schema",
              "lineage",
              "lineage_history",
              "static_lineage",
              "snapshots",
            ],
          }),
          ...errors("400", "401", "403", "404"),
        },
      },
    ),
  },
  "/api/lake/table/preview": {
    get: op("read", "The first rows of a lake table (or of one partition) at a snapshot, read-only", {
      parameters: [
        LAKE_URI,
        {
          name: "partition",
          in: "query",
          required: false,
          description: "one Sluice partition",
          schema: { type: "string" },
        },
        {
          name: "snapshot",
          in: "query",
          required: false,
          description: "snapshot id (default: latest)",
          schema: { type: "integer" },
        },
        {
          name: "limit",
          in: "query",
          required: false,
          description: "rows, 1 to 500 (default 50)",
          schema: { type: "integer" },
        },
      ],
      responses: { ...ok("200", "columns, rows, total and the snapshot read"), ...errors("400", "401", "403", "404") },
    }),
  },
};
