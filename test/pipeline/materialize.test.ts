/**
 * Managed `// materialize` in DuckDB SQL scripts on Sluice's DuckLake writer: the seed's
 * partitioned merge example with its data tests, a whole-table replace, `ATTACH
 * 'ducklake://…'` reads, the run's `{asset, rows, snapshot_id}`, the cascade, and a
 * violating slice (the run fails with every test's outcome, the table keeps its previous
 * snapshot, no write is recorded and the downstream does not run).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { withProjectLake } from "../../src/lake/project-lake.js";
import { openLake } from "../../src/lake/reader.js";
import { manualTargetChanged, markManualTarget } from "../../src/pipeline/runtime/runners/manual-materialize.js";
import { WRITTEN_PREFIX } from "../../src/pipeline/runtime/written-index.js";
import { MATERIALIZED_PREFIX } from "../../src/pipeline/runtime/runners/sql.js";
import { lineageOf } from "../../src/pipeline/runtime/lineage-record.js";
import { schemaHistory } from "../../src/pipeline/runtime/schema-history.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const ORDERS_SQL = `-- pipeline
-- materialize ducklake://main/orders
SELECT * FROM (VALUES
  (1::BIGINT, 'paid', 10.00::DECIMAL(10,2), TIMESTAMP '2026-05-16 09:00:00'),
  (2, 'pending', 20.00, TIMESTAMP '2026-05-16 10:00:00'),
  (3, 'refunded', 5.00, TIMESTAMP '2026-05-17 11:00:00')
) t(order_id, status, amount, created_at)
`;

const MORE_ORDERS_SQL = `-- pipeline
-- materialize ducklake://main/orders append
SELECT * FROM (VALUES
  (3::BIGINT, 'lost', 7.00::DECIMAL(10,2), TIMESTAMP '2026-05-17 12:00:00')
) t(order_id, status, amount, created_at)
`;

// The seed's examples, unchanged (their headers are // lines).
const DAILY_SQL = `// pipeline
// materialize ducklake://main/orders_daily key=order_id
// partitioned daily
// data_test not_null order_id
// data_test unique order_id
// data_test accepted_values status = paid,pending,refunded

ATTACH 'ducklake://main' AS dl;
SELECT order_id, status, amount FROM dl.orders WHERE created_at::date = '{partition}'
`;

const CUSTOMERS_SQL = `-- pipeline
-- materialize ducklake://main/customers
-- $tier (text) = gold
SELECT * FROM (VALUES (1, 'Ada', $tier), (2, 'Bo', 'silver')) t(customer_id, name, tier)
`;

const CUSTOMER_DIM_SQL = `// pipeline
// materialize ducklake://main/customer_dim key=customer_id

ATTACH 'ducklake://main' AS dl;
SELECT customer_id, name, tier FROM dl.customers
`;

const REPORT_SQL = `-- pipeline
-- on ducklake://main/orders_daily
ATTACH 'ducklake://main' AS dl;
SELECT count(*) AS n, sum(amount) AS total FROM dl.orders_daily
`;

const TRAVEL_SQL = `-- pipeline
ATTACH 'ducklake://main' AS dl;
SELECT
  (SELECT count(*) FROM dl.orders AT (VERSION => 1)) AS at_v1,
  (SELECT count(*) FROM dl.orders) AS latest,
  (SELECT count(*) FROM dl.orders_daily AT (TIMESTAMP => now())) AS daily_now,
  (SELECT count(*) FROM dl.orders AS o AT (VERSION => 2) JOIN dl.orders_daily d USING (order_id)) AS joined
`;

const TRAVEL_PARAM_SQL = `-- pipeline
-- $v (int) = 1
-- $t (timestamp)
ATTACH 'ducklake://main' AS dl;
SELECT
  (SELECT count(*) FROM dl.orders AT (VERSION => $v)) AS at_v,
  (SELECT count(*) FROM dl.orders AT (TIMESTAMP => $t)) AS at_t
`;

const BAD_LAKE_SQL = `-- pipeline
ATTACH 'ducklake://main.2' AS dl;
SELECT 1 AS n
`;

const ATTACH_WRITE_SQL = `-- pipeline
-- materialize manual ducklake://main/man
ATTACH 'ducklake://main' AS dl;
CREATE TABLE dl.man AS SELECT 1 AS x;
SELECT 'ok' AS r
`;

const ATTACH_INSERT_SQL = `-- pipeline
ATTACH 'ducklake://main' AS dl;
INSERT INTO dl.orders SELECT * FROM dl.orders;
SELECT 'ok' AS r
`;

const NO_LAKE_SQL = `-- pipeline
ATTACH 'ducklake://nolake' AS dl;
SELECT * FROM dl.t
`;

const NO_LAKE_TS = `// pipeline
import * as wmill from 'windmill-client';

export async function main() {
  return await wmill.ducklake("nolake").read("t");
}
`;

const TRAVEL_MISSING_SQL = `-- pipeline
ATTACH 'ducklake://main' AS dl;
SELECT count(*) AS n FROM dl.orders AT (VERSION => 999)
`;

const DT_TRAVEL_TS = `// pipeline
import * as wmill from 'windmill-client';

export async function main() {
	const sql = wmill.datatable();
	await sql\`CREATE OR REPLACE TABLE thresholds AS SELECT 6 AS min_amount\`;
	const q = (at: string) =>
		sql.query(\`ATTACH 'ducklake://main' AS dl; SELECT count(*) AS n FROM dl.orders \${at} JOIN thresholds ON amount >= min_amount WHERE amount >= $1\`, 0).fetchOne();
	const v1 = await q("AT (VERSION => 1)");
	const now = await q("AT (TIMESTAMP => now())");
	const latest = await q("");
	const bound = await sql.query(\`ATTACH 'ducklake://main' AS dl; SELECT count(*) AS n FROM dl.orders AT (VERSION => $2) WHERE amount >= $1\`, 0, 1).fetchOne();
	const leaked = await sql\`SELECT count(*) AS n FROM information_schema.schemata WHERE schema_name = 'dl'\`.fetchOne();
	return { v1: v1.n, now: now.n, latest: latest.n, bound: bound.n, leaked: leaked.n };
}
`;

const DT_TRAVEL_PY = `# pipeline
import wmill


def main():
    return wmill.datatable().query("ATTACH 'ducklake://main' AS dl; SELECT count(*) AS n FROM dl.orders AT (VERSION => 1)").fetch()
`;

const TS_WRITER = `// pipeline
// partitioned daily
// column kind <- ducklake://code/raw.kind_code
// column not_written <- ducklake://code/raw.x
import * as wmill from 'windmill-client';

export async function main(partition: string) {
  const lake = wmill.ducklake("code");
  const first = await lake.upsertPartition("events", [{ id: 1, kind: "a" }, { id: 2, kind: "b" }], { key: "id" });
  const again = await lake.upsertPartition("events", [{ id: 2, kind: "B" }], { key: "id" });
  const appended = await lake.appendPartition("events", [{ id: 3, kind: "c" }]);
  const rows = await lake.read("events", { partition });
  const old = await lake.read("events", { version: first.snapshot_id });
  return { first, again, appended, rows: rows.map((r) => [r.id, r.kind]).sort(), old: old.length };
}
`;

const PY_WRITER = `# pipeline
import wmill


def main():
    lake = wmill.ducklake("py")
    first = lake.upsert_partition("t", [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}])
    second = lake.upsert_partition("t", [{"a": 2, "b": "z"}], key="a")
    return {"first": first, "second": second, "rows": sorted([r["a"], r["b"]] for r in lake.read("t")), "at_first": len(lake.read("t", version=first["snapshot_id"]))}
`;

const CHECKED_SQL = `-- pipeline
-- materialize ducklake://main/checked
-- data_test f/tests/amount_positive
SELECT * FROM (VALUES (1, 5.0), (2, -1.0)) t(id, amount)
`;

const MANUAL_SQL = `-- pipeline
-- materialize manual ducklake://main/m
SELECT 7 AS seven
`;

describe("managed // materialize into a DuckLake table", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({
      "f/mat/orders.sql": ORDERS_SQL,
      "f/mat/more_orders.sql": MORE_ORDERS_SQL,
      "f/mat/daily.sql": DAILY_SQL,
      "f/mat/report.sql": REPORT_SQL,
      "f/mat/manual.sql": MANUAL_SQL,
      "f/mat/travel.sql": TRAVEL_SQL,
      "f/mat/customers.sql": CUSTOMERS_SQL,
      "f/mat/customer_dim.sql": CUSTOMER_DIM_SQL,
      "f/mat/checked.sql": CHECKED_SQL,
      "f/tests/amount_positive.sql": "SELECT id, amount FROM slice WHERE amount <= 0\n",
      "f/mat/ts_writer.ts": TS_WRITER,
      "f/mat/py_writer.py": PY_WRITER,
      "f/mat/travel_missing.sql": TRAVEL_MISSING_SQL,
      "f/mat/travel_param.sql": TRAVEL_PARAM_SQL,
      "f/mat/bad_lake.sql": BAD_LAKE_SQL,
      "f/mat/attach_write.sql": ATTACH_WRITE_SQL,
      "f/mat/attach_insert.sql": ATTACH_INSERT_SQL,
      "f/mat/no_lake.sql": NO_LAKE_SQL,
      "f/mat/no_lake_ts.ts": NO_LAKE_TS,
      "f/mat/dt_travel.ts": DT_TRAVEL_TS,
      "f/mat/dt_travel_py.py": DT_TRAVEL_PY,
    });
  });
  afterAll(async () => p?.close());
  const catalog = () => join(p.root, ".sluice", "lakes", "main.sqlite");

  it("replaces a whole table and returns {asset, rows, snapshot_id}", async () => {
    const h = await p.pipelines.runScript("f/mat/orders", {});
    expect(await h.result({ timeoutMs: 20_000 })).toEqual({ asset: "ducklake://main/orders", rows: 3, snapshot_id: 1 });
    const again = await p.pipelines.runScript("f/mat/orders", {});
    expect(await again.result({ timeoutMs: 20_000 })).toEqual({
      asset: "ducklake://main/orders",
      rows: 3,
      snapshot_id: 2,
    });
    const lake = await openLake(catalog());
    try {
      expect(await lake.query("orders", { kind: "latest" }, "SELECT count(*) AS n FROM {table}")).toEqual([{ n: 3 }]);
      expect(
        await lake.query("orders", { kind: "version", snapshotId: 1 }, "SELECT count(*) AS n FROM {table}"),
      ).toEqual([{ n: 3 }]);
    } finally {
      await lake.close();
    }
    expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toEqual([
      "ducklake://main/orders",
    ]);
    const history = await schemaHistory(p.store, "ducklake://main/orders");
    expect(history.map((v) => [v.version, v.snapshot_id, v.columns])).toEqual([
      [
        1,
        1,
        [
          { name: "order_id", type: "BIGINT" },
          { name: "status", type: "VARCHAR" },
          { name: "amount", type: "DECIMAL(10,2)" },
          { name: "created_at", type: "TIMESTAMP" },
        ],
      ],
    ]);
  });

  it("runs the seed's partitioned merge with data tests, records the state and fires the downstream", async () => {
    const h = await p.pipelines.runScript("f/mat/daily", {}, { partition: "2026-05-16" });
    const result = await h.result({ timeoutMs: 20_000 });
    expect(result).toEqual({
      asset: "ducklake://main/orders_daily",
      rows: 2,
      snapshot_id: 3,
      partition: "2026-05-16",
      tests: [
        { test: "not_null order_id", passed: true, offending: 0, examples: [] },
        { test: "unique order_id", passed: true, offending: 0, examples: [] },
        { test: "accepted_values status = paid,pending,refunded", passed: true, offending: 0, examples: [] },
      ],
    });
    await p.settle({ timeoutMs: 30_000 });
    const [report] = await p.runsOf("f/mat/report");
    expect(report?.status, JSON.stringify(report?.error)).toBe("succeeded");
    // a DECIMAL handed to code is a number when one holds it exactly (src/assets/duckdb-json.ts)
    expect(decodeValue(report!.result)).toEqual([{ n: 2, total: 30 }]);
    const state = (await p.store.kvList(MATERIALIZED_PREFIX)).find((r) => r.key.includes("orders_daily 2026-05-16"));
    expect(JSON.parse(state!.value)).toMatchObject({ rows: 2, snapshot_id: 3, run: h.id });
    // Re-running the slice is idempotent: same rows, a new snapshot.
    const again = await p.pipelines.runScript("f/mat/daily", {}, { partition: "2026-05-16", cascade: false });
    expect(await again.result({ timeoutMs: 20_000 })).toMatchObject({ rows: 2, snapshot_id: 4 });
    const lake = await openLake(catalog());
    try {
      expect(
        await lake.query(
          "orders_daily",
          { kind: "latest" },
          "SELECT order_id, status, _partition FROM {table} ORDER BY order_id",
        ),
      ).toEqual([
        { order_id: 1, status: "paid", _partition: "2026-05-16" },
        { order_id: 2, status: "pending", _partition: "2026-05-16" },
      ]);
    } finally {
      await lake.close();
    }
  });

  it("fails a violating slice before publishing it: every outcome listed, previous snapshot current, no write recorded, no downstream", async () => {
    const more = await p.pipelines.runScript("f/mat/more_orders", {});
    expect(await more.result({ timeoutMs: 20_000 })).toMatchObject({ rows: 1, snapshot_id: 5 });
    const reportsBefore = (await p.runsOf("f/mat/report")).length;
    const h = await p.pipelines.runScript("f/mat/daily", {}, { partition: "2026-05-17" });
    await expect(h.result({ timeoutMs: 20_000 })).rejects.toThrow(
      /2 of 3 data test\(s\) failed.*not_null order_id: pass; unique order_id: fail, 2 row\(s\), e\.g\. 3; accepted_values status = paid,pending,refunded: fail, 1 row\(s\), e\.g\. "lost"/,
    );
    await p.settle();
    const [run] = (await p.runsOf("f/mat/daily")).filter((r) => r.id === h.id);
    expect(run?.error?.code).toBe("LAKE_AUDIT_FAILED");
    const lake = await openLake(catalog());
    try {
      expect((await lake.snapshot()).snapshotId).toBe(5);
      expect(
        await lake.query(
          "orders_daily",
          { kind: "latest" },
          "SELECT count(*) AS n FROM {table} WHERE _partition = '2026-05-17'",
        ),
      ).toEqual([{ n: 0 }]);
    } finally {
      await lake.close();
    }
    expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset")).toEqual([]);
    expect((await p.store.kvList(WRITTEN_PREFIX)).filter((r) => r.key.includes("2026-05-17"))).toEqual([]);
    expect((await p.runsOf("f/mat/report")).length).toBe(reportsBefore);
  });

  it("runs the seed's whole-table merge example unchanged: upserts on the key, leaves other rows in place", async () => {
    await (await p.pipelines.runScript("f/mat/customers", {})).result({ timeoutMs: 20_000 });
    const first = await (await p.pipelines.runScript("f/mat/customer_dim", {})).result({ timeoutMs: 20_000 });
    expect(first).toMatchObject({ asset: "ducklake://main/customer_dim", rows: 2 });
    const renamed = await p.pipelines.runScript("f/mat/customers", { tier: "platinum" });
    await renamed.result({ timeoutMs: 20_000 });
    const second = await (await p.pipelines.runScript("f/mat/customer_dim", {})).result({ timeoutMs: 20_000 });
    expect(second).toMatchObject({ rows: 2 });
    const lake = await openLake(catalog());
    try {
      expect(await lake.query("customer_dim", { kind: "latest" }, "SELECT * FROM {table} ORDER BY ALL")).toEqual([
        { customer_id: 1, name: "Ada", tier: "platinum" },
        { customer_id: 2, name: "Bo", tier: "silver" },
      ]);
    } finally {
      await lake.close();
    }
  });

  it("runs a custom data test script (a SELECT of offending rows over the view slice) before publishing", async () => {
    const h = await p.pipelines.runScript("f/mat/checked", {});
    await expect(h.result({ timeoutMs: 20_000 })).rejects.toThrow(
      /1 of 1 data test\(s\) failed.*f\/tests\/amount_positive: fail, 1 row\(s\), e\.g\. \{"id":2,"amount":"-1\.0"\}/,
    );
    const lake = await openLake(catalog());
    try {
      expect((await lake.tables()).map((t) => t.name)).not.toContain("main.checked");
    } finally {
      await lake.close();
    }
  });

  it("time travels in user SQL with AT (VERSION => n) and AT (TIMESTAMP => t), rewritten through DuckDB's parser", async () => {
    const h = await p.pipelines.runScript("f/mat/travel", {});
    expect(await h.result({ timeoutMs: 20_000 })).toEqual([{ at_v1: 3, latest: 4, daily_now: 2, joined: 2 }]);
    // the version and the time as the script's arguments (bound to find the snapshot)
    const bound = await p.pipelines.runScript("f/mat/travel_param", {
      v: 1,
      t: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(await bound.result({ timeoutMs: 20_000 })).toEqual([{ at_v: 3, at_t: 4 }]);
    const badLake = await p.pipelines.runScript("f/mat/bad_lake", {});
    await expect(badLake.result({ timeoutMs: 20_000 })).rejects.toThrow(
      /ducklake:\/\/main\.2: in DuckDB SQL a lake is read as `ATTACH 'ducklake:\/\/<lake>' AS <alias>` \(a lake name of letters, digits, _ and -\)/,
    );
    const missing = await p.pipelines.runScript("f/mat/travel_missing", {});
    await expect(missing.result({ timeoutMs: 20_000 })).rejects.toThrow(/no snapshot with version 999/);
  });

  it("time travels in data-table queries that ATTACH a lake, from TypeScript and Python, leaving the data table's file untouched", async () => {
    const ts = await p.pipelines.runScript("f/mat/dt_travel", {});
    // orders: 3 rows at snapshot 1 (10, 20, 5); 4 now (7 appended); the join keeps amounts >= 6
    expect(await ts.result({ timeoutMs: 20_000 })).toEqual({ v1: 2, now: 3, latest: 3, bound: 3, leaked: 0 });
    const py = await p.pipelines.runScript("f/mat/dt_travel_py", {});
    expect(await py.result({ timeoutMs: 20_000 })).toEqual([{ n: 3 }]);
  });

  it("writes and reads lake tables from TypeScript and Python with the seed's ducklake helpers", async () => {
    const ts = await p.pipelines.runScript("f/mat/ts_writer", {}, { partition: "2026-05-20" });
    expect(await ts.result({ timeoutMs: 20_000 })).toEqual({
      first: { asset: "ducklake://code/events", rows: 2, snapshot_id: 1, partition: "2026-05-20" },
      again: { asset: "ducklake://code/events", rows: 1, snapshot_id: 2, partition: "2026-05-20" },
      appended: { asset: "ducklake://code/events", rows: 1, snapshot_id: 3, partition: "2026-05-20" },
      rows: [
        [1, "a"],
        [2, "B"],
        [3, "c"],
      ],
      old: 2,
    });
    // code has no SQL AST: its // column lines for the columns it wrote are recorded as the lineage,
    // one version from the first write's snapshot on (the next two writes computed the same)
    const lineage = await lineageOf(p.store, "ducklake://code/events");
    expect([lineage?.snapshot_id, lineage?.columns]).toEqual([
      1,
      [
        {
          output: "kind",
          sources: [{ table: "ducklake://code/raw", column: "kind_code" }],
          passthrough: false,
          origin: "annotation",
        },
      ],
    ]);
    expect((await p.store.getSteps(ts.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toContain(
      "ducklake://code/events",
    );
    // …and records the partition it wrote and the table's schema, as a `// materialize` write does
    const slices = async (uri: string) =>
      (await p.store.kvList(`${MATERIALIZED_PREFIX}${uri} `)).map((r) => {
        const v = JSON.parse(r.value) as Record<string, unknown>;
        return [r.key.slice(MATERIALIZED_PREFIX.length), v.rows, v.snapshot_id, v.partition ?? null, v.run];
      });
    expect(await slices("ducklake://code/events")).toEqual([
      ["ducklake://code/events 2026-05-20", 1, 3, "2026-05-20", ts.id],
    ]);
    expect(
      (await schemaHistory(p.store, "ducklake://code/events")).map((v) => [v.version, v.snapshot_id, v.columns]),
    ).toEqual([
      [
        1,
        1,
        [
          { name: "id", type: "BIGINT" },
          { name: "kind", type: "VARCHAR" },
          { name: "_partition", type: "VARCHAR" },
        ],
      ],
    ]);
    const py = await p.pipelines.runScript("f/mat/py_writer", {});
    expect(await py.result({ timeoutMs: 30_000 })).toEqual({
      first: { asset: "ducklake://py/t", rows: 2, snapshot_id: 1 },
      second: { asset: "ducklake://py/t", rows: 1, snapshot_id: 2 },
      rows: [
        [1, "x"],
        [2, "z"],
      ],
      at_first: 2,
    });
    // a whole-table write from Python: the slice with an empty partition
    expect(await slices("ducklake://py/t")).toEqual([["ducklake://py/t ", 1, 2, null, py.id]]);
  });

  it("runs a `manual` materialization but records its table as written only when the run did change it", async () => {
    const h = await p.pipelines.runScript("f/mat/manual", {});
    expect(await h.result({ timeoutMs: 15_000 })).toEqual([{ seven: 7 }]);
    expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toEqual([]);
    expect((await p.store.getLogs(h.id)).map((l) => l.message).join("\n")).toContain(
      "ducklake://main/m was not recorded as written: no snapshot made during this run created or changed main.m",
    );
    // what the runner asks of the lake, around a write made by other means (as a manual script's own tooling would)
    const host = await p.pipelines.assets();
    const target = { uri: "ducklake://main/m", path: "main/m" } as Parameters<typeof markManualTarget>[1];
    const mark = await markManualTarget(host, target);
    expect(await manualTargetChanged(host, mark)).toBe(false);
    await withProjectLake(host, "main", (lake) =>
      withDuckDb([], (conn) => lake.write(conn, { table: "m", mode: "replace", source: "SELECT 7 AS seven" })),
    );
    expect(await manualTargetChanged(host, mark)).toBe(true);
    expect(await manualTargetChanged(host, await markManualTarget(host, target))).toBe(false);
    // a lake that did not exist at the mark: created with the table by the run
    const fresh = { uri: "ducklake://manual_new/t", path: "manual_new/t" } as typeof target;
    const before = await markManualTarget(host, fresh);
    expect(before.before).toBeUndefined();
    expect(await manualTargetChanged(host, before)).toBe(false);
    await withProjectLake(host, "manual_new", (lake) =>
      withDuckDb([], (conn) => lake.write(conn, { table: "t", mode: "replace", source: "SELECT 1 AS x" })),
    );
    expect(await manualTargetChanged(host, before)).toBe(true);
  });

  it("refuses writes through an ATTACH of a lake (they would only change a scratch copy) and records nothing", async () => {
    const created = await p.pipelines.runScript("f/mat/attach_write", {});
    await expect(created.result({ timeoutMs: 15_000 })).rejects.toThrow(
      /the script created dl\.man, which changed a scratch copy in this run and never the lake \(nothing was written to it\); an ATTACH of a ducklake:\/\/ lake is read-only in Sluice/,
    );
    const inserted = await p.pipelines.runScript("f/mat/attach_insert", {});
    await expect(inserted.result({ timeoutMs: 15_000 })).rejects.toThrow(
      /an ATTACH of a ducklake:\/\/ lake is read-only in Sluice/,
    );
    for (const h of [created, inserted])
      expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toEqual([]);
    const lake = await openLake(catalog());
    try {
      expect((await lake.tables()).map((t) => t.name)).not.toContain("main.man");
    } finally {
      await lake.close();
    }
  });

  it("reads a lake that does not exist without creating it", async () => {
    const h = await p.pipelines.runScript("f/mat/no_lake", {});
    await expect(h.result({ timeoutMs: 15_000 })).rejects.toThrow(/t does not exist/);
    const ts = await p.pipelines.runScript("f/mat/no_lake_ts", {});
    await expect(ts.result({ timeoutMs: 15_000 })).rejects.toThrow(
      /lake nolake does not exist \(nothing was ever written into ducklake:\/\/nolake\), so it has no table t to read/,
    );
    expect(existsSync(join(p.root, ".sluice", "lakes", "nolake.sqlite"))).toBe(false);
  });
});
