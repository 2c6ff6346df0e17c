import { describe, expect, it } from "vitest";
import { parseAnnotations } from "./annotations.js";
import { checkMaterializeBody, splitSqlStatements } from "./materialize-body.js";

const BODY = [
  "ATTACH 'ducklake://main' AS dl;",
  "SELECT order_id, amount, created_at",
  "FROM dl.orders",
  "WHERE created_at::date = '{partition}'",
];
const sql = (...annotations: string[]) =>
  parseAnnotations(["-- pipeline", ...annotations, "", ...BODY].join("\n"), { path: "f/x/orders.sql" });
const codes = (r: ReturnType<typeof sql>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// materialize: strategy and unit", () => {
  it("managed, replace by default", () => {
    const r = sql("-- materialize ducklake://main/orders_daily");
    expect(r.annotations.materialize).toEqual({
      mode: "managed",
      target: expect.objectContaining({ uri: "ducklake://main/orders_daily" }),
      strategy: "replace",
      line: 2,
    });
    expect(r.diagnostics).toEqual([]);
  });

  it("key=<col> → merge", () => {
    expect(sql("-- materialize ducklake://main/orders_daily key=order_id").annotations.materialize).toMatchObject({
      strategy: "merge",
      key: "order_id",
    });
  });

  it("append → insert-only", () => {
    expect(sql("-- materialize ducklake://main/events append").annotations.materialize).toMatchObject({
      strategy: "append",
    });
  });

  it("append wins over key= (warning)", () => {
    const r = sql("-- materialize ducklake://main/events key=id append");
    expect(r.annotations.materialize?.strategy).toBe("append");
    expect(r.annotations.materialize?.key).toBeUndefined();
    expect(codes(r)).toEqual(["warning:2:MATERIALIZE_APPEND_WINS"]);
  });

  it("works with or without // partitioned (independent axes)", () => {
    const r = sql("-- materialize ducklake://main/orders_daily key=order_id", "-- partitioned daily");
    expect(r.annotations.materialize?.strategy).toBe("merge");
    expect(r.annotations.partitioned?.spec.kind).toBe("daily");
  });

  it("manual is track-only; options on it are ignored", () => {
    const r = sql("-- materialize manual ducklake://main/orders append");
    expect(r.annotations.materialize).toMatchObject({ mode: "manual", strategy: "replace" });
    expect(codes(r)).toEqual(["warning:2:MATERIALIZE_MANUAL_OPTIONS"]);
  });

  it("manual does not check the body", () => {
    const r = parseAnnotations(
      "-- materialize manual ducklake://main/t\nCREATE TABLE dl.t AS SELECT 1;\nINSERT INTO dl.t VALUES (2);",
      { language: "sql" },
    );
    expect(r.annotations.materialize?.mode).toBe("manual");
    expect(r.diagnostics).toEqual([]);
  });

  it("first wins", () => {
    const r = sql("-- materialize ducklake://main/a", "-- materialize ducklake://main/b");
    expect(r.annotations.materialize?.target.uri).toBe("ducklake://main/a");
    expect(codes(r)).toEqual(["warning:3:DUPLICATE_IGNORED"]);
  });

  it("unknown options are ignored", () => {
    const r = sql("-- materialize ducklake://main/a fast");
    expect(r.annotations.materialize?.strategy).toBe("replace");
    expect(codes(r)).toEqual(["warning:2:MATERIALIZE_OPTION_UNKNOWN"]);
  });
});

describe("// materialize: errors", () => {
  it.each([
    ["-- materialize", "MATERIALIZE_TARGET_MISSING"],
    ["-- materialize manual", "MATERIALIZE_TARGET_MISSING"],
    ["-- materialize ducklake://main/ord:ers", "MATERIALIZE_TARGET_INVALID"],
    ["-- materialize s3://bucket/orders.parquet", "MATERIALIZE_TARGET_NOT_DUCKLAKE"],
    ["-- materialize ducklake://main", "MATERIALIZE_TARGET_NOT_DUCKLAKE"],
    ["-- materialize ducklake://main/s/t", "MATERIALIZE_TARGET_NOT_DUCKLAKE"],
    ["-- materialize ducklake://Main-Lake.2/orders", "MATERIALIZE_TARGET_INVALID"],
    ["-- materialize ducklake://main/orders_{partition}", "MATERIALIZE_TARGET_PARTITIONED"],
    ["-- materialize ducklake://main/orders key=", "MATERIALIZE_KEY_INVALID"],
    ["-- materialize ducklake://main/orders key=order-id", "MATERIALIZE_KEY_INVALID"],
  ])("%s → %s", (line, code) => {
    const r = sql(line);
    expect(r.annotations.materialize).toBeUndefined();
    expect(codes(r)).toEqual([`error:2:${code}`]);
  });

  it("is DuckDB SQL only", () => {
    const r = parseAnnotations("// pipeline\n// materialize ducklake://main/t\nexport async function main() {}", {
      path: "f/x/a.ts",
    });
    expect(r.annotations.materialize).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(["MATERIALIZE_NOT_DUCKDB"]);
    expect(r.diagnostics[0]?.message).toContain("ducklake helpers");
    expect(parseAnnotations("# materialize ducklake://main/t", { path: "a.py" }).diagnostics[0]?.code).toBe(
      "MATERIALIZE_NOT_DUCKDB",
    );
  });

  it("a managed script must be setup statements plus one trailing SELECT", () => {
    const r = parseAnnotations(
      [
        "-- materialize ducklake://main/t",
        "ATTACH 'ducklake://main' AS dl;",
        "INSERT INTO dl.t SELECT 1;",
        "SELECT 2",
      ].join("\n"),
      { language: "sql" },
    );
    expect(r.annotations.materialize).toBeUndefined();
    expect(r.diagnostics.map((d) => `${d.line}:${d.code}`)).toEqual(["3:MATERIALIZE_BODY_NOT_SELECT"]);
    expect(r.diagnostics[0]?.message).toContain("INSERT");
  });
});

describe("checkMaterializeBody", () => {
  it("accepts setup + one trailing SELECT (WITH / FROM-first too)", () => {
    expect(checkMaterializeBody(BODY.join("\n"))).toBeUndefined();
    expect(
      checkMaterializeBody(
        "SET threads=4; INSTALL ducklake; LOAD ducklake; CREATE TEMP TABLE x AS SELECT 1; WITH a AS (SELECT 1) SELECT * FROM a;",
      ),
    ).toBeUndefined();
    expect(checkMaterializeBody("CREATE OR REPLACE TEMPORARY VIEW v AS SELECT 1;\nFROM v")).toBeUndefined();
    expect(
      checkMaterializeBody(
        "-- materialize ducklake://a/b\n/* block; comment */ SELECT ';' AS semi -- trailing; comment\n",
      ),
    ).toBeUndefined();
  });

  it("rejects an empty body, a non-setup statement and a non-SELECT ending", () => {
    expect(checkMaterializeBody("-- only comments\n")?.message).toContain("needs a trailing SELECT");
    expect(checkMaterializeBody("SELECT 1;\nSELECT 2")?.line).toBe(1);
    expect(checkMaterializeBody("ATTACH 'x' AS y;\n\nDELETE FROM t")).toMatchObject({ line: 3 });
    expect(checkMaterializeBody("CREATE TABLE t AS SELECT 1")?.message).toContain("CREATE");
  });

  it("splits statements outside quotes and comments, with start lines", () => {
    expect(splitSqlStatements("SELECT 'a;b';\n-- x; y\nSELECT \"c;d\";\n\n/* ;\n */ SELECT $$e;f$$")).toEqual([
      { text: "SELECT 'a;b'", line: 1 },
      { text: 'SELECT "c;d"', line: 3 },
      { text: "SELECT $$e;f$$", line: 6 },
    ]);
  });
});
