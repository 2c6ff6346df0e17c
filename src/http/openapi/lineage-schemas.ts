/**
 * Component schemas of the pipeline graph and of column lineage (`routes/pipelines.ts`,
 * `routes/lake-tables.ts`): `PipelineGraph` (one folder of `GET /api/pipelines`, the shape of
 * `sluice pipeline graph --json`), its write edges' `EdgeLineage`, and the `LineageRecord`s
 * of `GET /api/lake/table`.
 */

type Schema = Record<string, unknown>;

const str = (description?: string): Schema => (description ? { type: "string", description } : { type: "string" });
const int = (description: string): Schema => ({ type: "integer", description });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: "object",
  properties,
  required,
});
const list = (items: Schema, description?: string): Schema => ({
  type: "array",
  items,
  ...(description && { description }),
});

const LINEAGE_COLUMN = obj({
  output: str("the output column"),
  sources: list(
    obj({
      table: str("an asset URI (ducklake://main/orders) or the SQL name of a table the query reads (a temp table)"),
      column: str(),
    }),
    "the source columns it is derived from (empty: a constant or count(*), or origin unknown)",
  ),
  passthrough: { type: "boolean", description: "the value is one source column unchanged (possibly renamed)" },
  origin: {
    type: "string",
    enum: ["inferred", "annotation", "unknown"],
    description:
      "inferred from the SQL's parse tree, declared by a // column line (the annotation wins), or unknown: the SQL was followed but this column's sources could not be pinned down (e.g. an unqualified column that several tables of unknown schema may hold), so none are claimed",
  },
});

const COLUMNS = {
  columns: list(ref("LineageColumn"), "one entry per output column"),
  warnings: list(str(), "what inference could not follow, e.g. * over a table function or a temp table"),
};
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });

/** The lineage and graph schemas, merged into `components.schemas`. */
export const LINEAGE_SCHEMAS: Record<string, Schema> = {
  LineageColumn: LINEAGE_COLUMN,
  LineageRecord: obj(
    {
      asset: str("ducklake://<lake>/<table>"),
      script: str("the script that wrote it"),
      snapshot_id: int(
        "the lake snapshot of the managed write that computed it (or of the rollback that restored it); it holds from there on",
      ),
      run: str("the run of that write"),
      at: int("when it was recorded, ms since the epoch"),
      ...COLUMNS,
      restores: int(
        "only on a version a `sluice lake rollback` brought back: the snapshot of the version it restores (script and run are that version's)",
      ),
    },
    ["asset", "script", "snapshot_id", "run", "at", "columns", "warnings"],
  ),
  EdgeLineage: obj({
    source: {
      type: "string",
      enum: ["recorded", "static", "annotations"],
      description:
        "recorded: what the script's last managed write computed (inferred, merged with // column lines); static: no write recorded yet, inferred from the loaded script's SQL without running it (lake tables it reads have the columns of their last write, else of the loaded script that writes them; other tables are of unknown schema), merged the same way; annotations: no write recorded and no SQL to infer from (code writes), the // column lines alone",
    },
    snapshot_id: nullable(int("the lake snapshot of that write (null unless recorded)")),
    run: nullable(str("the run of that write")),
    at: nullable(int("when it was recorded, ms since the epoch")),
    ...COLUMNS,
  }),
  PipelineGraph: obj({
    folder: str("the pipeline folder, e.g. f/demo"),
    ok: { type: "boolean", description: "false when the folder has error diagnostics" },
    depthCap: int("the folder's cascade depth cap"),
    scripts: list({ type: "object" }, "member scripts in cascade order with their inputs, outputs and annotations"),
    assets: list(obj({ uri: str(), kind: str(), partitioned: { type: "boolean" } })),
    edges: list(
      obj(
        {
          kind: { type: "string", enum: ["writes", "triggers", "reads", "fires"] },
          from: str("node id, script:<path> or asset:<uri>"),
          to: str("node id"),
          written: str("for writes into a {partition} node: the concrete URI written"),
          lineage: {
            anyOf: [ref("EdgeLineage"), { type: "null" }],
            description:
              "writes into a lake table only: the column lineage the script's last managed write recorded, else the one its SQL gives before a write, else its // column lines, else null",
          },
        },
        ["kind", "from", "to"],
      ),
    ),
    diagnostics: list({ type: "object" }, "annotation problems with file and line"),
  }),
};
