/**
 * Seed 001 materializations not covered elsewhere: the column-lineage example
 * (`ducklake://warehouse/orders_enriched` with its `// column` line) run unchanged, and the
 * strategy cell "append to the partition" from a DuckDB script (`// materialize … append` with
 * `// partitioned`), each partition's appends kept apart and every snapshot reading back, and a
 * retried append (same run id, from SQL and from code's appendPartition) that does not append twice.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { decodeValue } from "../../src/core/serde.js";
import { openLake } from "../../src/lake/reader.js";
import { materialize } from "../../src/pipeline/runtime/runners/sql-lake.js";
import { lineageOf } from "../../src/pipeline/runtime/lineage-record.js";
import { startPipelines, type PipelineProject } from "../pipeline/harness.js";

const WAREHOUSE_ORDERS = `-- pipeline
-- materialize ducklake://warehouse/orders
SELECT * FROM (VALUES (1::BIGINT, 10.00::DECIMAL(10,2), 1.50::DECIMAL(10,2)), (2, 20.00, 2.00)) t(order_id, amount, tax)
`;

// Seed 001, "Column-level lineage", unchanged.
const ENRICHED = `// pipeline
// materialize ducklake://warehouse/orders_enriched
// column order_total <- ducklake://warehouse/orders.amount, ducklake://warehouse/orders.tax

ATTACH 'ducklake://warehouse' AS dl;
SELECT order_id, amount + tax AS order_total FROM dl.orders
`;

// The upstream whose write cascades to CODE_APPEND (// retry applies to cascaded runs).
const CODE_PRODUCE = `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';

export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`code/in/\${partition}.json\` }, "{}");
}
`;

// Appends, then fails its first attempt (after the commits); the retry appends again in code.
const CODE_APPEND = `// pipeline
// on s3://code/in/{partition}.json
// retry 1 1s
import { existsSync, writeFileSync } from 'node:fs';
import * as wmill from 'windmill-client';

export async function main(partition: string) {
  const lake = wmill.ducklake("code");
  const first = await lake.appendPartition("events", [{ id: 1 }, { id: 2 }]);
  const second = await lake.appendPartition("events", [{ id: 3 }]);
  const marker = process.env.FAIL_ONCE_MARKER!;
  if (!existsSync(marker)) {
    writeFileSync(marker, "x");
    throw new Error("the first attempt dies after its commits");
  }
  return { first, second };
}
`;

const APPEND_DAILY = `// pipeline
// partitioned daily
// materialize ducklake://main/clicks append

SELECT '{partition}' AS day, i AS n FROM range(0, 3) r(i)
`;

describe("seed 001 materializations", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({
      "f/wh/orders.sql": WAREHOUSE_ORDERS,
      "f/wh/orders_enriched.sql": ENRICHED,
      "f/clicks/daily.sql": APPEND_DAILY,
      "f/code/produce.ts": CODE_PRODUCE,
      "f/code/append.ts": CODE_APPEND,
    });
  });
  afterAll(async () => p?.close());

  it("runs the column-lineage example unchanged: rows written, the annotation wins for order_total", async () => {
    const src = await p.pipelines.runScript("f/wh/orders", {}, { cascade: false });
    expect(await src.result({ timeoutMs: 20_000 })).toMatchObject({ asset: "ducklake://warehouse/orders", rows: 2 });
    const h = await p.pipelines.runScript("f/wh/orders_enriched", {});
    expect(await h.result({ timeoutMs: 20_000 })).toMatchObject({
      asset: "ducklake://warehouse/orders_enriched",
      rows: 2,
      snapshot_id: 2,
    });
    const lake = await openLake(join(p.root, ".sluice", "lakes", "warehouse.sqlite"));
    try {
      expect(
        await lake.query("orders_enriched", { kind: "latest" }, "SELECT order_id, order_total FROM {table} ORDER BY 1"),
      ).toEqual([
        { order_id: 1, order_total: "11.50" },
        { order_id: 2, order_total: "22.00" },
      ]);
    } finally {
      await lake.close();
    }
    const lineage = await lineageOf(p.store, "ducklake://warehouse/orders_enriched");
    expect(lineage?.columns).toEqual([
      {
        output: "order_id",
        sources: [{ table: "ducklake://warehouse/orders", column: "order_id" }],
        passthrough: true,
        origin: "inferred",
      },
      {
        output: "order_total",
        sources: [
          { table: "ducklake://warehouse/orders", column: "amount" },
          { table: "ducklake://warehouse/orders", column: "tax" },
        ],
        passthrough: false,
        origin: "annotation",
      },
    ]);
  });

  it("appends to the partition from a DuckDB script: each run adds its rows to its partition only", async () => {
    const run = async (partition: string) =>
      (await p.pipelines.runScript("f/clicks/daily", {}, { partition })).result({ timeoutMs: 20_000 });
    expect(await run("2026-05-01")).toMatchObject({ rows: 3, snapshot_id: 1, partition: "2026-05-01" });
    expect(await run("2026-05-02")).toMatchObject({ rows: 3, snapshot_id: 2, partition: "2026-05-02" });
    expect(await run("2026-05-01")).toMatchObject({ rows: 3, snapshot_id: 3, partition: "2026-05-01" });
    const lake = await openLake(join(p.root, ".sluice", "lakes", "main.sqlite"));
    const perDay = "SELECT day, count(*) AS n FROM {table} GROUP BY day ORDER BY day";
    try {
      expect(await lake.query("clicks", { kind: "version", snapshotId: 1 }, perDay)).toEqual([
        { day: "2026-05-01", n: 3 },
      ]);
      expect(await lake.query("clicks", { kind: "version", snapshotId: 2 }, perDay)).toEqual([
        { day: "2026-05-01", n: 3 },
        { day: "2026-05-02", n: 3 },
      ]);
      expect(await lake.query("clicks", { kind: "latest" }, perDay)).toEqual([
        { day: "2026-05-01", n: 6 },
        { day: "2026-05-02", n: 3 },
      ]);
    } finally {
      await lake.close();
    }
  });

  it("does not append twice when a run that committed its append is retried (same run id)", async () => {
    const member = p.pipelines
      .catalog()
      .folder("f/clicks")!
      .members.find((m) => m.path === "f/clicks/daily.sql")!;
    const attempt = (runId: string) =>
      withDuckDb(
        [],
        async (conn) =>
          (
            await materialize(conn, {
              host: await p.pipelines.assets(),
              annotation: member.analyzed.annotations.materialize!,
              tests: [],
              sql: "SELECT '2026-06-01' AS day, i AS n FROM range(0, 3) r(i)",
              partitioned: true,
              partition: "2026-06-01",
              script: member.path,
              runId,
              valueOf: () => undefined,
              lakes: new Map(),
            })
          ).summary,
      );
    const first = await attempt("run-a");
    // the second attempt of run-a (its worker died after the commit) finds the commit and adds nothing
    expect(await attempt("run-a")).toEqual(first);
    const other = await attempt("run-b");
    expect(other.snapshot_id).toBe(first.snapshot_id + 1);
    const lake = await openLake(join(p.root, ".sluice", "lakes", "main.sqlite"));
    try {
      expect(
        await lake.query("clicks", { kind: "latest" }, "SELECT count(*) AS n FROM {table} WHERE day = '2026-06-01'"),
      ).toEqual([{ n: 6 }]);
      expect(
        await lake.query(
          "clicks",
          { kind: "version", snapshotId: first.snapshot_id },
          "SELECT count(*) AS n FROM {table} WHERE day = '2026-06-01'",
        ),
      ).toEqual([{ n: 3 }]);
    } finally {
      await lake.close();
    }
  });

  it("does not append twice from code when the attempt after a committed appendPartition retries", async () => {
    process.env.FAIL_ONCE_MARKER = join(p.root, "failed-once");
    await (
      await p.pipelines.runScript("f/code/produce", {}, { partition: "2026-07-01" })
    ).result({
      timeoutMs: 20_000,
    });
    await p.settle({ timeoutMs: 30_000 });
    const [run] = await p.runsOf("f/code/append");
    expect([run?.status, run?.attempt]).toEqual(["succeeded", 2]);
    const out = decodeValue(run!.result) as any;
    // the retry's two appends are the first attempt's two commits, found by run and call order
    expect([out.first.snapshot_id, out.first.rows, out.second.snapshot_id, out.second.rows]).toEqual([1, 2, 2, 1]);
    const lake = await openLake(join(p.root, ".sluice", "lakes", "code.sqlite"));
    try {
      expect((await lake.snapshots()).map((s) => s.snapshotId)).toEqual([0, 1, 2]);
      expect(await lake.query("events", { kind: "latest" }, "SELECT id FROM {table} ORDER BY id")).toEqual([
        { id: 1 },
        { id: 2 },
        { id: 3 },
      ]);
    } finally {
      await lake.close();
    }
  });
});
