/**
 * Pre-write column lineage (`pipeline/runtime/static-lineage.ts`) over a real project folder
 * scanned by the catalog and parsed by real DuckDB: a chain of managed SQL materializations
 * where each downstream `*` is expanded through its upstream's inferred outputs (`_partition`
 * included for a `// partitioned` upstream), the store's recorded columns taking precedence,
 * DuckDB's own names for unnamed outputs, and a SELECT DuckDB cannot parse.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { PipelineCatalog } from "../../src/pipeline/runtime/catalog.js";
import { inferLoadedLineage } from "../../src/pipeline/runtime/static-lineage.js";
import { makeProject } from "../helpers/project.js";

/** Unnamed outputs of many kinds: DuckDB names each after its own rendering of the expression. */
const EXPRESSIONS = [
  "upper(kind)",
  "count(*) OVER ()",
  "sum(amount) OVER (PARTITION BY kind ORDER BY id)",
  "'x' || kind",
  "amount BETWEEN 1 AND 2",
  "kind IN ('a', 'b')",
  "kind LIKE 'a%'",
  "[1, 2]",
  "{'a': 1}",
  "coalesce(id, 1)",
  "id // 2",
  "NOT (id = 1)",
  "CASE WHEN id > 1 THEN 'y' ELSE kind END",
  "EXISTS (SELECT 1)",
  "list_transform([1], x -> x + id)",
  "42",
].join(", ");

/** Unnamed outputs with casts: the binder spells their types its own way (`CAST(x AS "DATE")`, `DECIMAL(10, 2)`). */
const CASTS = [
  "DATE '2020-01-01' AS d",
  "DATE '2020-01-01'",
  "sum(1::DECIMAL(10,2)) OVER ()",
  "id::INT",
  "CAST(r.amount AS DECIMAL(10,2))",
  "kind::VARCHAR",
  "TRY_CAST(kind AS DATE)",
  "r.id::INT8 + 1",
  "CAST(amount AS FLOAT) * 2",
].join(", ");

const FILES = {
  "f/chain/raw.sql": `-- pipeline
-- partitioned daily
-- materialize ducklake://wh/raw
SELECT * FROM (VALUES (1, 'a', 2.5)) t(id, kind, amount)
`,
  "f/chain/daily.sql": `-- pipeline
-- on ducklake://wh/raw
-- materialize ducklake://wh/daily
ATTACH 'ducklake://wh' AS w;
SELECT *, amount * 2 AS doubled, upper(kind), count(*) OVER () FROM w.raw
`,
  "f/chain/top.sql": `-- pipeline
-- on ducklake://wh/daily
-- materialize ducklake://wh/top
ATTACH 'ducklake://wh' AS w;
SELECT d.* EXCLUDE (doubled) FROM w.daily d
`,
  "f/names/exprs.sql": `-- pipeline
-- materialize ducklake://wh/exprs
ATTACH 'ducklake://wh' AS w;
SELECT ${EXPRESSIONS} FROM w.raw
`,
  "f/names/casts.sql": `-- pipeline
-- materialize ducklake://wh/casts
ATTACH 'ducklake://wh' AS w;
SELECT ${CASTS} FROM w.raw r
`,
  "f/names/temps.sql": `-- pipeline
-- materialize ducklake://wh/temps
ATTACH 'ducklake://wh' AS w;
SET threads = 1;
CREATE TEMP TABLE recent AS SELECT id, amount * 2 AS doubled FROM w.raw WHERE amount > 1;
CREATE OR REPLACE TEMPORARY VIEW "kinds AS of" AS SELECT upper(kind), kind AS k FROM w.raw;
CREATE TEMP TABLE later (x INTEGER);
SELECT r.*, v.k, v."upper(kind)", x FROM recent r, "kinds AS of" v, later
`,
  "f/chain/broken.sql": `-- pipeline
-- materialize ducklake://wh/broken
SELECT FROM WHERE
`,
};

describe("inferLoadedLineage", () => {
  it("chains inference through the loaded writers of the lake tables a SELECT reads", async () => {
    const root = makeProject(FILES, "sluice-static-lineage-");
    const folders = PipelineCatalog.scan(root).folders();
    const lineage = await inferLoadedLineage(folders, async () => undefined);
    const daily = lineage.get("f/chain/daily.sql")!;
    expect(daily.asset).toBe("ducklake://wh/daily");
    const RAW = "ducklake://wh/raw";
    expect(daily.result!.columns).toEqual([
      { output: "id", sources: [{ table: RAW, column: "id" }], passthrough: true },
      { output: "kind", sources: [{ table: RAW, column: "kind" }], passthrough: true },
      { output: "amount", sources: [{ table: RAW, column: "amount" }], passthrough: true },
      // raw is // partitioned: its table has the _partition column Sluice adds
      { output: "_partition", sources: [{ table: RAW, column: "_partition" }], passthrough: true },
      { output: "doubled", sources: [{ table: RAW, column: "amount" }], passthrough: false },
      // unnamed outputs take the names DuckDB gives them
      { output: "upper(kind)", sources: [{ table: RAW, column: "kind" }], passthrough: false },
      { output: "count() OVER ()", sources: [], passthrough: false },
    ]);
    expect(daily.warnings).toEqual([]);
    // two levels down: daily's outputs (inferred, not written yet) are the schema top's * expands over
    const top = lineage.get("f/chain/top.sql")!;
    expect(top.result!.columns.map((c) => [c.output, c.sources.map((s) => `${s.table}.${s.column}`)])).toEqual([
      ["id", ["ducklake://wh/daily.id"]],
      ["kind", ["ducklake://wh/daily.kind"]],
      ["amount", ["ducklake://wh/daily.amount"]],
      ["_partition", ["ducklake://wh/daily._partition"]],
      ["upper(kind)", ["ducklake://wh/daily.upper(kind)"]],
      ["count() OVER ()", ["ducklake://wh/daily.count() OVER ()"]],
    ]);
    const broken = lineage.get("f/chain/broken.sql")!;
    expect(broken.result).toBeUndefined();
    expect(broken.warnings[0]).toMatch(
      /^column lineage cannot be inferred before a write: DuckDB could not parse its SELECT: syntax error at or near "WHERE"/,
    );
  });

  it("a lake table's recorded columns (its last write) win over its writer's SQL; unknown ones are not expanded", async () => {
    const root = makeProject(FILES, "sluice-static-lineage-");
    const folders = PipelineCatalog.scan(root).folders();
    const asked: string[] = [];
    const lineage = await inferLoadedLineage(folders, async (uri) => {
      asked.push(uri);
      return uri === "ducklake://wh/daily" ? ["id", "note", "doubled"] : undefined;
    });
    expect(lineage.get("f/chain/top.sql")!.result!.columns.map((c) => c.output)).toEqual(["id", "note"]);
    expect(asked.sort()).toEqual(["ducklake://wh/daily", "ducklake://wh/raw"]);
  });

  it("temp tables and views of the setup statements have the columns of their own SELECT, and lineage goes through them", async () => {
    const root = makeProject(FILES, "sluice-static-lineage-");
    const lineage = await inferLoadedLineage(PipelineCatalog.scan(root).folders(), async () => undefined);
    const temps = lineage.get("f/names/temps.sql")!;
    expect(
      temps.result!.columns.map((c) => [
        c.output,
        c.sources.map((x) => `${x.table}.${x.column}`),
        c.passthrough,
        c.unknown ?? false,
      ]),
    ).toEqual([
      // a temp table is not an asset: a column read from it cites what its query read
      ["id", ["ducklake://wh/raw.id"], true, false],
      ["doubled", ["ducklake://wh/raw.amount"], false, false],
      ["k", ["ducklake://wh/raw.kind"], true, false],
      ["upper(kind)", ["ducklake://wh/raw.kind"], false, false],
      // a temp table made without a query (a column list) has no known columns; x is in neither
      // known one, so only it can hold x (its lineage stops there: it was not made from a query)
      ["x", ["later.x"], true, false],
    ]);
  });

  it("names unnamed outputs as DuckDB does when it runs the SELECT", async () => {
    const root = makeProject(FILES, "sluice-static-lineage-");
    const lineage = await inferLoadedLineage(PipelineCatalog.scan(root).folders(), async () => undefined);
    const instance = await DuckDBInstance.create(":memory:");
    const conn = await instance.connect();
    try {
      await conn.run("CREATE TABLE raw AS SELECT * FROM (VALUES (1, 'a', 2.5)) t(id, kind, amount)");
      const described = (await conn.runAndReadAll(`DESCRIBE SELECT ${EXPRESSIONS} FROM raw`))
        .getRowObjects()
        .map((r) => String(r.column_name));
      expect(described).toHaveLength(16);
      expect(lineage.get("f/names/exprs.sql")!.result!.columns.map((c) => c.output)).toEqual(described);
      // a cast's name spells its type as the binder does (CAST(x AS "DATE"), DECIMAL(10, 2)): named by the binder too
      const castNames = (await conn.runAndReadAll(`DESCRIBE SELECT ${CASTS} FROM raw r`))
        .getRowObjects()
        .map((r) => String(r.column_name));
      expect(castNames).toHaveLength(9);
      expect(castNames).toContain("CAST('2020-01-01' AS \"DATE\")");
      const casts = lineage.get("f/names/casts.sql")!;
      expect(casts.result!.columns.map((c) => c.output)).toEqual(castNames);
      expect(casts.warnings).toEqual([]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
