/**
 * Column lineage end to end: a pipeline folder run by a real `sluice dev` process (the
 * cascade materializes a joined, aggregated table), its lineage read through the API
 * (`GET /api/lake/table`) and the real `sluice lake lineage` binary, and a `// column`
 * annotation winning over inference. Before any write, the graph's write edges already carry
 * the lineage inferred from the scripts' SQL (the same as the write then records), with what
 * cannot be known before a write marked `unknown`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/shop/orders.sql": `-- pipeline
-- materialize ducklake://main/orders
SELECT * FROM (VALUES
  (1::BIGINT, 10, 10.00::DECIMAL(10,2), 1.50::DECIMAL(10,2)),
  (2, 11, 20.00, 2.00),
  (3, 10, 5.00, 0.50)
) t(order_id, customer_id, amount, tax)
`,
  "f/shop/customers.sql": `-- pipeline
-- materialize ducklake://main/customers
SELECT * FROM (VALUES (10, 'Ada', 'gold'), (11, 'Bo', 'silver')) t(customer_id, name, tier)
`,
  "f/shop/enriched.sql": `// pipeline
// on ducklake://main/orders
// materialize ducklake://main/enriched
// column tier_label <- ducklake://main/customers.tier

ATTACH 'ducklake://main' AS dl;
CREATE TEMP TABLE rates AS SELECT 'gold' AS tier, 0.9 AS discount;
WITH totals AS (
  SELECT customer_id, sum(amount + tax) AS gross, count(*) AS n FROM dl.orders GROUP BY customer_id
)
SELECT c.*, t.gross * coalesce(r.discount, 1) AS net, t.n, lower(c.tier) AS tier_label, s.max_order
FROM totals t
JOIN dl.customers AS c USING (customer_id)
LEFT JOIN rates r ON r.tier = c.tier
LEFT JOIN (SELECT customer_id AS cid, max(order_id) AS max_order FROM dl.orders GROUP BY 1) s ON s.cid = t.customer_id
`,
  // two temp tables of unknown schema before a write (made from column lists, not queries, whose
  // outputs would give their columns): an unqualified x may be either's
  "f/shop/mystery.sql": `// pipeline
// materialize ducklake://main/mystery
ATTACH 'ducklake://main' AS dl;
CREATE TEMP TABLE a (id INTEGER, x INTEGER);
CREATE TEMP TABLE b (id INTEGER, y INTEGER);
SELECT o.order_id, x, sum(o.amount) AS total, count(*), b.* FROM a JOIN b USING (id) JOIN dl.orders o ON o.order_id = a.id GROUP BY ALL
`,
  // code writes: their // column lines for the columns written are the lineage, so a wider write changes it
  "f/evo/writer.ts": `// pipeline
// column kind <- ducklake://main/raw.kind_code
// column label <- ducklake://main/raw.label_text
import * as wmill from 'windmill-client';

export async function main(wide: boolean) {
  const rows = wide ? [{ id: 1, kind: "a", label: "x" }] : [{ id: 1, kind: "a" }];
  return await wmill.ducklake().upsertPartition("evo", rows);
}
`,
};

const ORDERS = "ducklake://main/orders";
const CUSTOMERS = "ducklake://main/customers";
const EXPECTED = [
  {
    output: "customer_id",
    sources: [{ table: CUSTOMERS, column: "customer_id" }],
    passthrough: true,
    origin: "inferred",
  },
  { output: "name", sources: [{ table: CUSTOMERS, column: "name" }], passthrough: true, origin: "inferred" },
  { output: "tier", sources: [{ table: CUSTOMERS, column: "tier" }], passthrough: true, origin: "inferred" },
  {
    output: "net",
    sources: [
      { table: ORDERS, column: "amount" },
      { table: ORDERS, column: "tax" },
      // rates is a temp table: its discount is a constant of its own query, so no source
    ],
    passthrough: false,
    origin: "inferred",
  },
  { output: "n", sources: [], passthrough: false, origin: "inferred" },
  { output: "tier_label", sources: [{ table: CUSTOMERS, column: "tier" }], passthrough: false, origin: "annotation" },
  { output: "max_order", sources: [{ table: ORDERS, column: "order_id" }], passthrough: false, origin: "inferred" },
];

describe("column lineage of a materialized table", () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  beforeAll(async () => {
    root = makeProject(FILES, "sluice-lineage-");
    // shared: it serves every test of the file (unshared processes are killed after each test)
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {}, { shared: true });
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  }, 40_000);
  afterAll(async () => {
    dev?.proc.kill("SIGTERM");
    await dev?.exited;
  });

  const run = async (script: string, cascade: boolean, args: Record<string, unknown> = {}) => {
    const res = await fetch(`${url}/api/pipelines/scripts/${script}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cascade, args }),
    });
    expect(res.status, await res.text()).toBe(202);
  };

  /** The write edge `script → uri` of `sluice pipeline graph --json` (the real binary) and of `GET /api/pipelines`. */
  const graphEdges = async (script: string, uri: string) => {
    const graph = spawnSluice(["pipeline", "graph", "--json"], root);
    expect(await graph.exited, graph.output()).toBe(0);
    const api = (await (await fetch(`${url}/api/pipelines`)).json()) as any;
    const edgeOf = (folders: any[]) =>
      folders
        .flatMap((f) => f.edges)
        .find((e: any) => e.kind === "writes" && e.from === `script:${script}` && e.to === `asset:${uri}`);
    return { cli: edgeOf(JSON.parse(graph.stdout())), api: edgeOf(api.pipelines) };
  };

  it("is inferred on the write, merged with // column, and served by the API and the CLI", async () => {
    // before a first write: inferred from the SQL as loaded (lake tables read have the columns their
    // loaded writers' SELECTs give; the temp table rates has the columns of its own SELECT)
    const before = await graphEdges("f/shop/enriched.sql", "ducklake://main/enriched");
    const inferred = { source: "static", snapshot_id: null, run: null, at: null, columns: EXPECTED, warnings: [] };
    expect([before.cli.lineage, before.api.lineage]).toEqual([inferred, inferred]);
    const constants = await graphEdges("f/shop/orders.sql", ORDERS);
    for (const edge of [constants.cli, constants.api])
      expect(edge.lineage).toEqual({
        ...inferred,
        columns: ["order_id", "customer_id", "amount", "tax"].map((output) => ({
          output,
          sources: [],
          passthrough: false,
          origin: "inferred",
        })),
      });
    // what cannot be known before a write is said, never guessed
    const mystery = await graphEdges("f/shop/mystery.sql", "ducklake://main/mystery");
    expect(mystery.cli.lineage).toEqual(mystery.api.lineage);
    expect(mystery.cli.lineage.source).toBe("static");
    expect(mystery.cli.lineage.columns).toEqual([
      { output: "order_id", sources: [{ table: ORDERS, column: "order_id" }], passthrough: true, origin: "inferred" },
      { output: "x", sources: [], passthrough: false, origin: "unknown" },
      { output: "total", sources: [{ table: ORDERS, column: "amount" }], passthrough: false, origin: "inferred" },
      { output: "count_star()", sources: [], passthrough: false, origin: "inferred" },
    ]);
    expect(mystery.cli.lineage.warnings).toEqual([
      "* over b cannot be expanded: its columns are not known; lineage may be partial",
      "the sources of x are unknown: it reads a column that more than one table of unknown schema (or an alias, or an outer query) may hold; qualify it (t.col) or declare it with -- column",
    ]);
    await run("f/shop/customers", false);
    await eventually(async () => {
      const d = (await (await fetch(`${url}/api/lake/table?uri=${CUSTOMERS}`)).json()) as { partitions: unknown[] };
      return d.partitions.length > 0 ? d : null;
    }, 20_000);
    await run("f/shop/orders", true);
    const detail = await eventually(async () => {
      const d = (await (await fetch(`${url}/api/lake/table?uri=ducklake://main/enriched`)).json()) as any;
      return d.lineage ? d : null;
    }, 30_000);
    expect(detail.lineage.script).toBe("f/shop/enriched.sql");
    expect(detail.lineage.columns).toEqual(EXPECTED);
    expect(detail.lineage.warnings).toEqual([]);
    expect(detail.schema.map((v: any) => v.columns.map((c: any) => c.name))).toEqual([
      ["customer_id", "name", "tier", "net", "n", "tier_label", "max_order"],
    ]);
    expect(detail.partitions).toHaveLength(1);
    expect(detail.lineage.snapshot_id).toBe(detail.partitions[0].snapshot_id);

    // the graph's write edge carries the same lineage, from the CLI binary and from the API
    const after = await graphEdges("f/shop/enriched.sql", "ducklake://main/enriched");
    for (const edge of [after.cli, after.api])
      expect(edge.lineage).toEqual({
        source: "recorded",
        snapshot_id: detail.lineage.snapshot_id,
        run: detail.lineage.run,
        at: detail.lineage.at,
        columns: EXPECTED,
        warnings: [],
      });
    // each script's write edge carries the lineage of the table it wrote
    const reads = await graphEdges("f/shop/orders.sql", ORDERS);
    expect(reads.cli.lineage.columns.map((c: any) => c.output)).toEqual(["order_id", "customer_id", "amount", "tax"]);
    // a store that cannot be read costs the recorded lineage, not the graph: // column lines only, said on stderr
    const unreachable = spawnSluice(["pipeline", "graph", "--json", "--db", "postgres://u@127.0.0.1:1/none"], root);
    expect(await unreachable.exited, unreachable.output()).toBe(0);
    expect(unreachable.stderr()).toContain("note: recorded column lineage not shown");
    const offline = (JSON.parse(unreachable.stdout()) as any[])
      .flatMap((f) => f.edges)
      .find((e: any) => e.from === "script:f/shop/enriched.sql" && e.kind === "writes");
    // without the store, the lineage its SQL gives before a write
    expect(offline.lineage).toEqual({
      source: "static",
      snapshot_id: null,
      run: null,
      at: null,
      columns: EXPECTED,
      warnings: [],
    });
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as any;
    const graphSchema = doc.paths["/api/pipelines"].get.responses["200"].content["application/json"].schema;
    expect(graphSchema.properties.pipelines.items.$ref).toBe("#/components/schemas/PipelineGraph");
    const edgeSchema = doc.components.schemas.PipelineGraph.properties.edges.items;
    expect(edgeSchema.properties.lineage.anyOf[0].$ref).toBe("#/components/schemas/EdgeLineage");
    expect(doc.components.schemas.LineageColumn.properties.origin.enum).toEqual(["inferred", "annotation", "unknown"]);
    expect(doc.components.schemas.EdgeLineage.properties.source.enum).toEqual(["recorded", "static", "annotations"]);
    const tableSchema = doc.paths["/api/lake/table"].get.responses["200"].content["application/json"].schema;
    expect(tableSchema.properties.lineage.anyOf[0].$ref).toBe("#/components/schemas/LineageRecord");

    const json = spawnSluice(["lake", "lineage", "main/enriched", "--json"], root);
    expect(await json.exited, json.output()).toBe(0);
    expect(JSON.parse(json.stdout()).columns).toEqual(EXPECTED);

    const text = spawnSluice(["lake", "lineage", "ducklake://main/enriched"], root);
    expect(await text.exited, text.output()).toBe(0);
    expect(text.stdout()).toMatch(
      /net\s+ducklake:\/\/main\/orders\.amount, ducklake:\/\/main\/orders\.tax\s+derived\s+inferred/,
    );
    expect(text.stdout()).toMatch(/tier_label\s+ducklake:\/\/main\/customers\.tier\s+derived\s+annotation/);
    expect(text.stdout()).toMatch(/name\s+ducklake:\/\/main\/customers\.name\s+passthrough\s+inferred/);
    expect(text.stdout()).toMatch(
      /\bn\s+\(none: no input column, e\.g\. a constant, count\(\*\) or the partition\)\s+derived/,
    );

    const missing = spawnSluice(["lake", "lineage", "main/nothing"], root);
    expect(await missing.exited).not.toBe(0);
    expect(missing.stderr()).toContain("no column lineage is recorded for ducklake://main/nothing");
    const bad = spawnSluice(["lake", "lineage", "main"], root);
    expect(await bad.exited).not.toBe(0);
    expect(bad.stderr()).toContain('"main" is not a lake table; write <lake>/<table>');

    const preview = (await (await fetch(`${url}/api/lake/table/preview?uri=${ORDERS}&limit=2`)).json()) as any;
    expect([preview.total, preview.rows.length, preview.columns.map((c: any) => c.name)]).toEqual([
      3,
      2,
      ["order_id", "customer_id", "amount", "tax"],
    ]);
    const refused = async (query: string, status: number, code: string) => {
      const res = await fetch(`${url}/api/lake/table/preview?${query}`);
      const body = (await res.json()) as any;
      expect([res.status, body.error.code], body.error.message).toEqual([status, code]);
      return body.error.message as string;
    };
    expect(await refused(`uri=${ORDERS}&snapshot=99`, 404, "LAKE_SNAPSHOT_NOT_FOUND")).toContain("no snapshot");
    expect(await refused(`uri=${ORDERS}&limit=x`, 400, "INVALID_QUERY")).toContain("?limit= must be a whole number");
    expect(await refused(`uri=${ORDERS}&partition=2026-05-16`, 400, "LAKE_ASSET_INVALID")).toContain(
      "is not partitioned by Sluice",
    );
    await refused("uri=ducklake://other/t", 404, "LAKE_NOT_FOUND");

    const notLake = await fetch(`${url}/api/lake/table?uri=s3://x/y`);
    expect(notLake.status).toBe(400);
    expect(((await notLake.json()) as any).error.code).toBe("LAKE_ASSET_INVALID");
  }, 90_000);

  it("is kept per snapshot: the API and the CLI read the lineage as of an older snapshot", async () => {
    const EVO = "ducklake://main/evo";
    const detailAt = async (snapshot?: number) =>
      (await (
        await fetch(`${url}/api/lake/table?uri=${EVO}${snapshot === undefined ? "" : `&snapshot=${snapshot}`}`)
      ).json()) as any;
    await run("f/evo/writer", false, { wide: false });
    const first = await eventually(async () => ((await detailAt()).lineage ? detailAt() : null), 30_000);
    await run("f/evo/writer", false, { wide: true });
    const second = await eventually(async () => {
      const d = await detailAt();
      return d.lineage_history.length === 2 ? d : null;
    }, 30_000);
    const outputs = (l: any) => l.columns.map((c: any) => c.output);
    const s1 = first.lineage.snapshot_id as number;
    const s2 = second.lineage.snapshot_id as number;
    expect(s2).toBeGreaterThan(s1);
    expect(outputs(second.lineage)).toEqual(["kind", "label"]);
    expect(second.lineage_history.map((v: any) => [v.snapshot_id, outputs(v)])).toEqual([
      [s1, ["kind"]],
      [s2, ["kind", "label"]],
    ]);
    // time travel: as of the first write's snapshot (and any later one before the second), the first lineage
    expect(outputs((await detailAt(s1)).lineage)).toEqual(["kind"]);
    expect(outputs((await detailAt(s2 - 1)).lineage)).toEqual(["kind"]);
    expect(outputs((await detailAt(s2)).lineage)).toEqual(["kind", "label"]);
    expect((await detailAt(0)).lineage).toBeNull();
    const bad = await fetch(`${url}/api/lake/table?uri=${EVO}&snapshot=x`);
    expect([bad.status, ((await bad.json()) as any).error.code]).toEqual([400, "INVALID_QUERY"]);

    const old = spawnSluice(["lake", "lineage", "main/evo", "--at", String(s1), "--json"], root);
    expect(await old.exited, old.output()).toBe(0);
    expect(outputs(JSON.parse(old.stdout()))).toEqual(["kind"]);
    const latest = spawnSluice(["lake", "lineage", "main/evo", "--json"], root);
    expect(await latest.exited, latest.output()).toBe(0);
    expect(outputs(JSON.parse(latest.stdout()))).toEqual(["kind", "label"]);
  }, 90_000);
});
