/**
 * A dev reload does not re-parse unchanged scripts: `PipelineCatalog.checked()` (the
 * `_partition` check, `runtime/reserved-column.ts`) takes each managed SQL script's DuckDB parse
 * from what an earlier check kept for the same source. Two reloads with nothing changed parse
 * nothing (and open no DuckDB); editing one script parses that one alone, and the check still
 * follows what it depends on: a `SELECT *` over a table whose writer became `-- partitioned`
 * is refused without the reading script being parsed again.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { PipelineCatalog } from "../../src/pipeline/runtime/catalog.js";
import { makeProject } from "../helpers/project.js";

// Pass-through spies: DuckDB really opens and parses; the wrappers only count the calls
// (an ES module's exports cannot be spied on in place).
const calls = vi.hoisted(() => ({ parses: 0, opens: 0 }));
vi.mock("../../src/pipeline/runtime/temp-tables.js", async (original) => {
  const real = await original<typeof import("../../src/pipeline/runtime/temp-tables.js")>();
  return {
    ...real,
    serializeSql: (...args: Parameters<typeof real.serializeSql>) => {
      calls.parses++;
      return real.serializeSql(...args);
    },
  };
});
vi.mock("../../src/assets/duckdb.js", async (original) => {
  const real = await original<typeof import("../../src/assets/duckdb.js")>();
  return {
    ...real,
    withDuckDb: (...args: Parameters<typeof real.withDuckDb>) => {
      calls.opens++;
      return real.withDuckDb(...args);
    },
  };
});

const UP = (partitioned: boolean) => `-- pipeline
${partitioned ? "-- partitioned daily\n" : ""}-- materialize ducklake://main/up
SELECT 1 AS n
`;
const DOWN = `-- pipeline
-- partitioned daily
-- materialize ducklake://main/down
ATTACH 'ducklake://main' AS dl;
SELECT * FROM dl.up
`;

const reserved = (c: PipelineCatalog) =>
  c
    .folders()
    .flatMap((f) => f.diagnostics)
    .filter((d) => d.code === "PARTITION_COLUMN_RESERVED")
    .map((d) => d.script);

describe("the _partition check across dev reloads", () => {
  beforeEach(() => {
    calls.parses = 0;
    calls.opens = 0;
  });

  it("parses only the scripts whose source changed, and follows what the others depend on", async () => {
    const root = makeProject({
      "f/a/up.sql": UP(false),
      "f/b/down.sql": DOWN,
      "f/b/other.sql": DOWN.replace(/down/g, "other"),
    });
    const first = await PipelineCatalog.load(root);
    expect(calls.parses).toBe(3);
    expect(reserved(first)).toEqual([]);

    const reload = async (previous: PipelineCatalog) => {
      calls.parses = 0;
      calls.opens = 0;
      return PipelineCatalog.scan(root, previous).checked();
    };
    const second = await reload(first);
    expect([calls.parses, calls.opens]).toEqual([0, 0]);
    const third = await reload(second);
    expect([calls.parses, calls.opens]).toEqual([0, 0]);
    expect(reserved(third)).toEqual([]);

    // the writer of dl.up becomes partitioned: its * now brings _partition into down and other
    writeFileSync(join(root, "f/a/up.sql"), UP(true));
    const edited = await reload(third);
    expect([calls.parses, calls.opens]).toEqual([1, 1]);
    expect(reserved(edited).sort()).toEqual(["f/b/down.sql", "f/b/other.sql"]);
  }, 60_000);
});
