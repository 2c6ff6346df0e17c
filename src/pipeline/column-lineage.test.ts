/**
 * Column lineage over statements parsed by DuckDB itself (`json_serialize_sql`, real DuckDB),
 * with a fixed set of known schemas.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuckDBInstance } from "@duckdb/node-api";
import { inferColumnLineage, tableRefs, type KnownTable, type TableRef } from "./column-lineage.js";

const SCHEMAS: Record<string, { table: string; columns: string[] }> = {
  "dl.orders": { table: "ducklake://main/orders", columns: ["order_id", "customer_id", "amount", "tax", "created_at"] },
  "dl.customers": { table: "ducklake://main/customers", columns: ["customer_id", "name", "tier"] },
  staging: { table: "staging", columns: ["id", "v"] },
};

const lookup = (r: TableRef): KnownTable | undefined => SCHEMAS[[r.schema, r.table].filter(Boolean).join(".")];

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

async function parse(sql: string): Promise<unknown> {
  const reader = await conn.runAndReadAll(`SELECT json_serialize_sql('${sql.replace(/'/g, "''")}') AS j`);
  const tree = JSON.parse(String(reader.getRowObjects()[0]!.j)) as { error: boolean };
  expect(tree.error).toBe(false);
  return tree;
}

/** `{ output: ["table.column", …] }` with `*` marking a passthrough. */
async function lineage(sql: string, outputNames?: string[]) {
  const r = inferColumnLineage(await parse(sql), lookup, outputNames);
  return {
    map: Object.fromEntries(
      r.columns.map((c) => [
        c.output + (c.passthrough ? "*" : ""),
        c.sources.map((s) => `${s.table.replace("ducklake://main/", "")}.${s.column}`),
      ]),
    ),
    warnings: r.warnings,
  };
}

describe("inferColumnLineage", () => {
  it("maps passthroughs, aliases and expressions over several columns", async () => {
    const { map, warnings } = await lineage(
      "SELECT order_id, amount + tax AS order_total, o.customer_id AS cust, 1 AS one FROM dl.orders o",
    );
    expect(map).toEqual({
      "order_id*": ["orders.order_id"],
      order_total: ["orders.amount", "orders.tax"],
      "cust*": ["orders.customer_id"],
      one: [],
    });
    expect(warnings).toEqual([]);
  });

  it("expands * through known schemas, with EXCLUDE, REPLACE, RENAME and t.*", async () => {
    expect(
      (
        await lineage(
          "SELECT * EXCLUDE (created_at, tax) REPLACE (amount * 2 AS amount) RENAME (order_id AS id) FROM dl.orders",
        )
      ).map,
    ).toEqual({
      "id*": ["orders.order_id"],
      "customer_id*": ["orders.customer_id"],
      amount: ["orders.amount"],
    });
    expect(
      (await lineage("SELECT c.*, o.amount FROM dl.orders o JOIN dl.customers c ON o.customer_id = c.customer_id")).map,
    ).toEqual({
      "customer_id*": ["customers.customer_id"],
      "name*": ["customers.name"],
      "tier*": ["customers.tier"],
      "amount*": ["orders.amount"],
    });
    expect(Object.keys((await lineage("SELECT COLUMNS('^(amount|tax)$') FROM dl.orders")).map)).toEqual([
      "amount*",
      "tax*",
    ]);
  });

  it("resolves joins by table alias; a USING column reads both sides and appears once in *", async () => {
    const { map } = await lineage(
      "SELECT o.order_id, c.name AS customer, upper(c.tier) || o.amount AS label FROM dl.orders AS o LEFT JOIN dl.customers AS c ON c.customer_id = o.customer_id",
    );
    expect(map).toEqual({
      "order_id*": ["orders.order_id"],
      "customer*": ["customers.name"],
      label: ["customers.tier", "orders.amount"],
    });
    const using = await lineage("SELECT * FROM dl.orders JOIN dl.customers USING (customer_id)");
    expect(Object.keys(using.map)).toEqual([
      "order_id*",
      "customer_id*",
      "amount*",
      "tax*",
      "created_at*",
      "name*",
      "tier*",
    ]);
    expect((await lineage("SELECT customer_id FROM dl.orders JOIN dl.customers USING (customer_id)")).map).toEqual({
      "customer_id*": ["orders.customer_id", "customers.customer_id"],
    });
  });

  it("follows CTEs (chained and recursive) and subqueries in FROM", async () => {
    const { map } = await lineage(`
      WITH base AS (SELECT order_id, amount + tax AS gross FROM dl.orders),
           big AS (SELECT order_id AS id, gross FROM base WHERE gross > 10)
      SELECT b.id, s.total, b.gross
      FROM big b JOIN (SELECT customer_id AS cid, sum(amount) AS total FROM dl.orders GROUP BY 1) s ON s.cid = b.id`);
    expect(map).toEqual({
      "id*": ["orders.order_id"],
      total: ["orders.amount"],
      gross: ["orders.amount", "orders.tax"],
    });
    const rec = await lineage(
      "WITH RECURSIVE r(n) AS (SELECT order_id FROM dl.orders UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
    );
    expect(rec.map).toEqual({ n: ["orders.order_id"] });
  });

  it("GROUP BY aggregates read their arguments; unnamed outputs take DuckDB's names", async () => {
    const { map } = await lineage(
      "SELECT customer_id, count(*) AS n, sum(amount), max(tax) FILTER (WHERE amount > 0) AS top FROM dl.orders GROUP BY customer_id HAVING count(*) > 1",
      ["customer_id", "n", "sum(amount)", "top"],
    );
    expect(map).toEqual({
      "customer_id*": ["orders.customer_id"],
      n: [],
      "sum(amount)": ["orders.amount"],
      top: ["orders.tax", "orders.amount"],
    });
  });

  it("window functions, scalar and correlated subqueries, CASE, set operations and VALUES", async () => {
    const { map } = await lineage(`
      SELECT row_number() OVER (PARTITION BY customer_id ORDER BY created_at) AS rn,
             (SELECT max(c.tier) FROM dl.customers c WHERE c.customer_id = o.customer_id) AS tier,
             CASE WHEN amount > 100 THEN 'big' ELSE 'small' END AS size
      FROM dl.orders o`);
    expect(map).toEqual({
      rn: ["orders.customer_id", "orders.created_at"],
      tier: ["customers.tier"],
      size: ["orders.amount"],
    });
    expect((await lineage("SELECT order_id AS id FROM dl.orders UNION ALL SELECT id FROM staging")).map).toEqual({
      "id*": ["orders.order_id", "staging.id"],
    });
    expect(
      (await lineage("SELECT v AS x, id FROM staging UNION ALL BY NAME SELECT name AS x, 0 AS n FROM dl.customers"))
        .map,
    ).toEqual({ "x*": ["staging.v", "customers.name"], "id*": ["staging.id"], n: [] });
    expect((await lineage("SELECT a + 1 AS b FROM (VALUES (1), (2)) t(a)")).map).toEqual({ b: [] });
  });

  it("keeps tables of unknown schema as sources and says what it could not expand", async () => {
    const r = await lineage("SELECT u.x, y FROM unknown_t u");
    expect(r.map).toEqual({ "x*": ["unknown_t.x"], "y*": ["unknown_t.y"] });
    const star = await lineage("SELECT * FROM unknown_t");
    expect(star.map).toEqual({});
    expect(star.warnings.join("\n")).toContain("* over unknown_t cannot be expanded");
    const fn = await lineage("SELECT a FROM read_parquet('x.parquet')");
    expect(fn.map).toEqual({ "a*": [] });
    expect(fn.warnings.join("\n")).toContain("read_parquet(…) is read without known columns");
  });

  it("an unqualified column that several tables of unknown schema may hold is unknown, never guessed", async () => {
    const two = inferColumnLineage(
      await parse("SELECT a.x, y, x + 1 AS z, y AS w FROM unknown_a a JOIN unknown_b b ON a.id = b.id"),
      lookup,
    );
    expect(two.columns).toEqual([
      { output: "x", sources: [{ table: "unknown_a", column: "x" }], passthrough: true },
      { output: "y", sources: [], passthrough: false, unknown: true },
      // an unqualified x could be a.x or b.x: the qualified a.x of the first output does not decide it
      { output: "z", sources: [], passthrough: false, unknown: true },
      { output: "w", sources: [], passthrough: false, unknown: true },
    ]);
    expect(two.warnings.join("\n")).toContain("the sources of y are unknown");
    // one table of unknown schema beside known ones: a column the known ones lack is its own
    expect((await lineage("SELECT c.name, discount FROM dl.customers c JOIN rates r USING (tier)")).map).toEqual({
      "name*": ["customers.name"],
      "discount*": ["rates.discount"],
    });
    // an earlier alias of the select list may be what an unqualified name means
    const alias = inferColumnLineage(
      await parse("SELECT v * 2 AS doubled, doubled + 1 AS next FROM unknown_t"),
      lookup,
    );
    expect(alias.columns.map((c) => [c.output, c.unknown ?? false])).toEqual([
      ["doubled", false],
      ["next", true],
    ]);
    // unknown propagates through a CTE and a subquery to the outputs that read it
    const cte = await lineage(
      "WITH j AS (SELECT y FROM unknown_a, unknown_b) SELECT y AS y2, (SELECT max(y) FROM j) AS m FROM j",
    );
    expect(cte.map).toEqual({ y2: [], m: [] });
  });

  it("lambda parameters are not columns", async () => {
    expect((await lineage("SELECT list_transform([1, 2], x -> x + amount) AS l FROM dl.orders")).map).toEqual({
      l: ["orders.amount"],
    });
  });

  it("lists the base tables a statement references", async () => {
    const tree = await parse("WITH c AS (SELECT * FROM staging) SELECT * FROM dl.orders, c, m.s.t");
    expect(tableRefs(tree)).toEqual([
      { catalog: "", schema: "", table: "staging" },
      { catalog: "", schema: "dl", table: "orders" },
      { catalog: "", schema: "", table: "c" },
      { catalog: "m", schema: "s", table: "t" },
    ]);
  });
});
