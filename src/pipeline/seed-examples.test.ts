/**
 * Every example of the seed document (Windmill "Pipelines"), verbatim, through the whole
 * pure layer: each must parse without diagnostics and yield what the seed says it means.
 */
import { describe, expect, it } from "vitest";
import { analyzePipeline, analyzeScript } from "./analyze.js";
import { planSelectiveRun } from "./selective-run.js";

const ts = (path: string, ...lines: string[]) => analyzeScript({ path, source: lines.join("\n") });
const HEADER = "import * as wmill from 'windmill-client';";

describe("seed examples parse cleanly and mean what the seed says", () => {
  it("marking a script", () => {
    const s = ts(
      "f/x/ingest.ts",
      "// pipeline",
      HEADER,
      "",
      "export async function main() {",
      "\tawait wmill.writeS3File({ s3: 'datasets/raw/events.parquet' }, await fetchEvents());",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.pipeline).toBe(true);
    expect(s.assets.writes.map((w) => w.asset.uri)).toEqual(["s3://datasets/raw/events.parquet"]);
  });

  it("inputs and outputs", () => {
    const s = ts(
      "f/x/clean.ts",
      "// pipeline",
      "// on s3://datasets/raw/events.parquet",
      HEADER,
      "",
      "export async function main() {",
      "\tconst events = await wmill.loadS3File({ s3: 'datasets/raw/events.parquet' });",
      "\tawait wmill.writeS3File({ s3: 'datasets/clean/events.parquet' }, transform(events));",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.inputs.map((i) => i.asset.uri)).toEqual(["s3://datasets/raw/events.parquet"]);
    expect(s.assets.reads.map((r) => r.asset.uri)).toEqual(["s3://datasets/raw/events.parquet"]);
    expect(s.assets.writes.map((w) => w.asset.uri)).toEqual(["s3://datasets/clean/events.parquet"]);
  });

  it("asset triggers", () => {
    const s = ts("f/x/a.ts", "// pipeline", "// on s3://datasets/raw/events.parquet", "// on $res:f/team/config");
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.inputs.map((i) => i.asset.kind)).toEqual(["s3", "resource"]);
  });

  it("native-trigger markers", () => {
    const s = ts(
      "f/x/orders.ts",
      "// pipeline",
      "// on schedule",
      "// on kafka",
      "// on webhook",
      HEADER,
      "",
      "export async function main() {",
      "\tawait wmill.writeS3File({ s3: 'datasets/raw/orders.parquet' }, await pull());",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.nativeTriggers.map((t) => t.kind)).toEqual(["schedule", "kafka", "webhook"]);
    expect(s.annotations.trigger).toBe("any");
  });

  it("freshness", () => {
    const s = ts(
      "f/x/daily.ts",
      "// pipeline",
      "// on s3://datasets/clean/events.parquet",
      "// freshness 2h",
      HEADER,
      "",
      "export async function main() {",
      "\tawait wmill.writeS3File({ s3: 'datasets/marts/daily.parquet' }, await rollup());",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.freshness?.duration.seconds).toBe(7200);
  });

  it("partitioned daily (defaults), with `${partition}` in the written path", () => {
    const s = ts(
      "f/x/p.ts",
      "// pipeline",
      "// partitioned daily",
      HEADER,
      "",
      "export async function main(partition: string) {",
      '\t// `partition` is injected by Windmill, e.g. "2026-05-16"',
      "\tawait wmill.writeS3File(",
      "\t\t{ s3: `datasets/raw/${partition}/events.parquet` },",
      "\t\tawait fetchEventsFor(partition)",
      "\t);",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.partitioned?.spec).toEqual({ kind: "daily", tz: "UTC", format: "%Y-%m-%d" });
    expect(s.assets.writes[0]?.asset.uri).toBe("s3://datasets/raw/{partition}/events.parquet");
  });

  it("hourly + start anchor; daily tz + format; dynamic per tenant", () => {
    expect(
      ts("f/x/h.ts", "// pipeline", '// partitioned hourly start="2026-01-01"').annotations.partitioned?.spec,
    ).toMatchObject({ kind: "hourly", start: "2026-01-01" });
    expect(
      ts("f/x/d.ts", "// pipeline", '// partitioned daily tz="America/New_York" format="%Y/%m/%d"').annotations
        .partitioned?.spec,
    ).toMatchObject({ tz: "America/New_York", format: "%Y/%m/%d" });
    const dyn = ts(
      "f/x/t.ts",
      "// pipeline",
      '// partitioned dynamic key="$.tenant_id"',
      HEADER,
      "",
      '// Triggered with a payload like { "tenant_id": "acme", ... }',
      '// `partition` resolves to "acme"',
    );
    expect(dyn.diagnostics).toEqual([]);
    expect(dyn.annotations.partitioned?.spec).toEqual({ kind: "dynamic", key: "$.tenant_id" });
  });

  it("materialization (managed merge into a daily partition)", () => {
    const s = analyzeScript({
      path: "f/x/orders_daily.sql",
      source: [
        "-- pipeline",
        "-- materialize ducklake://main/orders_daily key=order_id",
        "-- partitioned daily",
        "",
        "ATTACH 'ducklake://main' AS dl;",
        "",
        "SELECT order_id, amount, created_at",
        "FROM dl.orders",
        "WHERE created_at::date = '{partition}'",
      ].join("\n"),
    });
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.materialize).toMatchObject({ mode: "managed", strategy: "merge", key: "order_id" });
    expect(s.assets.writes.map((w) => w.asset.uri)).toEqual(["ducklake://main/orders_daily"]);
    expect(s.assets.reads.map((w) => w.asset.uri)).toEqual(["ducklake://main/orders"]);
  });

  it("whole-table materialization", () => {
    const s = analyzeScript({
      path: "f/x/dim.sql",
      source: [
        "-- pipeline",
        "-- materialize ducklake://main/customer_dim key=customer_id",
        "",
        "ATTACH 'ducklake://main' AS dl;",
        "SELECT customer_id, name, tier FROM dl.customers",
      ].join("\n"),
    });
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.partitioned).toBeUndefined();
    expect(s.annotations.materialize?.strategy).toBe("merge");
  });

  it("column-level lineage", () => {
    const s = analyzeScript({
      path: "f/x/enriched.sql",
      source: [
        "-- pipeline",
        "-- materialize ducklake://warehouse/orders_enriched",
        "-- column order_total <- ducklake://warehouse/orders.amount, ducklake://warehouse/orders.tax",
        "",
        "ATTACH 'ducklake://warehouse' AS dl;",
        "SELECT order_id, amount + tax AS order_total FROM dl.orders",
      ].join("\n"),
    });
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.columns[0]?.sources.map((c) => c.column)).toEqual(["amount", "tax"]);
  });

  it("data tests", () => {
    const s = analyzeScript({
      path: "f/x/orders_daily.sql",
      source: [
        "-- pipeline",
        "-- materialize ducklake://main/orders_daily key=order_id",
        "-- partitioned daily",
        "-- data_test not_null order_id",
        "-- data_test unique order_id",
        "-- data_test accepted_values status = paid,pending,refunded",
        "",
        "ATTACH 'ducklake://main' AS dl;",
        "SELECT order_id, status, amount FROM dl.orders WHERE created_at::date = '{partition}'",
      ].join("\n"),
    });
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.dataTests.map((t) => t.kind)).toEqual(["not_null", "unique", "accepted_values"]);
  });

  it("joining inputs with // trigger all (prose comment lines around it are not annotations)", () => {
    const s = ts(
      "f/x/enriched.ts",
      "// Daily enriched table: join the day's events with the day's sessions",
      "// (both partitioned, must agree on the day) plus the current customers",
      "// dimension (unpartitioned reference).",
      "//",
      "// pipeline",
      "// on s3://lake/raw/events/{partition}/events.parquet",
      "// on s3://lake/raw/sessions/{partition}/sessions.parquet",
      "// on s3://lake/dim/customers/current.parquet",
      "// trigger all",
      "// partitioned daily",
      HEADER,
      "",
      "export async function main(partition: string) {",
      "\t// guaranteed: both partition-bearing inputs exist for `partition`",
      "\tconst events = await wmill.loadS3File({ s3: `lake/raw/events/${partition}/events.parquet` });",
      "\tconst sessions = await wmill.loadS3File({ s3: `lake/raw/sessions/${partition}/sessions.parquet` });",
      "\tconst customers = await wmill.loadS3File({ s3: 'lake/dim/customers/current.parquet' });",
      "\tawait wmill.writeS3File(",
      "\t\t{ s3: `lake/marts/enriched/${partition}/data.parquet` },",
      "\t\tjoin(events, sessions, customers)",
      "\t);",
      "}",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.trigger).toBe("all");
    expect(s.annotations.inputs.map((i) => i.asset.partitioned)).toEqual([true, true, false]);
    expect(s.assets.reads.map((r) => r.asset.uri)).toEqual([
      "s3://lake/raw/events/{partition}/events.parquet",
      "s3://lake/raw/sessions/{partition}/sessions.parquet",
      "s3://lake/dim/customers/current.parquet",
    ]);
  });

  it("debounce", () => {
    const s = ts(
      "f/x/clean.ts",
      "// pipeline",
      "// debounce 1m",
      "// on s3://datasets/raw/events.parquet",
      "// on s3://datasets/dim/reference.parquet debounce=30s",
    );
    expect(s.diagnostics).toEqual([]);
    expect(s.annotations.debounce?.duration.seconds).toBe(60);
    expect(s.annotations.inputs.map((i) => i.debounce?.seconds)).toEqual([undefined, 30]);
  });

  it("worker tag and retry", () => {
    expect(ts("f/x/e.ts", "// pipeline", "// tag gpu").annotations.tag?.name).toBe("gpu");
    const r = ts("f/x/r.ts", "// pipeline", "// on s3://datasets/raw/events.parquet", "// retry 3 10s");
    expect(r.diagnostics).toEqual([]);
    expect(r.annotations.retry).toEqual({ count: 3, delay: { raw: "10s", seconds: 10 }, line: 3 });
  });

  it("the seed's selective-run CLI example: --to datatable://main/staged", () => {
    const p = analyzePipeline([
      {
        path: "f/etl/ingest.py",
        source:
          "# pipeline\n# on schedule\nimport wmill\ndef main():\n    wmill.write_s3_file(S3Object(s3='etl/raw.json'), b'')\n",
      },
      {
        path: "f/etl/stage.ts",
        source:
          "// pipeline\n// on s3://etl/raw.json\nconst sql = wmill.datatable('main');\nawait sql`INSERT INTO staged SELECT 1`;\n",
      },
      {
        path: "f/etl/report.sql",
        source:
          "-- pipeline\n-- on datatable://main/staged\nATTACH 'datatable://main' AS dt;\nCOPY (SELECT * FROM dt.staged) TO 's3://etl/report.csv';\n",
      },
    ]);
    expect(p.diagnostics).toEqual([]);
    expect(planSelectiveRun(p.graph, { to: ["datatable://main/staged"] }).steps).toEqual([
      "f/etl/ingest.py",
      "f/etl/stage.ts",
    ]);
    expect(planSelectiveRun(p.graph, { to: ["s3://etl/report.csv"] }).steps).toEqual([
      "f/etl/ingest.py",
      "f/etl/stage.ts",
      "f/etl/report.sql",
    ]);
  });
});
