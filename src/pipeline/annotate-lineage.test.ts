import { describe, expect, it } from "vitest";
import { parseAssetColumn } from "./annotate-lineage.js";
import { parseAnnotations } from "./annotations.js";

const MANAGED = ["-- pipeline", "-- materialize ducklake://main/orders_daily key=order_id", "-- partitioned daily"];
const BODY = ["ATTACH 'ducklake://main' AS dl;", "SELECT order_id, status, amount FROM dl.orders"];
const sql = (...lines: string[]) => parseAnnotations([...MANAGED, ...lines, ...BODY].join("\n"), { language: "sql" });
const codes = (r: ReturnType<typeof sql>) => r.diagnostics.map((d) => `${d.severity}:${d.line}:${d.code}`);

describe("// data_test", () => {
  it("parses every kind and accumulates them", () => {
    const r = sql(
      "-- data_test unique order_id",
      "-- data_test not_null order_id",
      "-- data_test accepted_values status = paid,pending,refunded",
      "-- data_test relationships customer_id -> ducklake://main/customers.id",
      "-- data_test f/tests/orders_amount_sane",
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.annotations.dataTests).toEqual([
      { kind: "unique", column: "order_id", line: 4 },
      { kind: "not_null", column: "order_id", line: 5 },
      { kind: "accepted_values", column: "status", values: ["paid", "pending", "refunded"], line: 6 },
      {
        kind: "relationships",
        column: "customer_id",
        references: { asset: "ducklake://main/customers", column: "id" },
        line: 7,
      },
      { kind: "script", path: "f/tests/orders_amount_sane", line: 8 },
    ]);
  });

  it("tolerates spacing in accepted_values and relationships", () => {
    const r = sql(
      "-- data_test accepted_values status=paid, pending",
      "-- data_test relationships c->ducklake://main/x.id",
    );
    expect(r.annotations.dataTests).toMatchObject([{ values: ["paid", "pending"] }, { column: "c" }]);
  });

  it("identical repeats are de-duplicated", () => {
    expect(sql("-- data_test unique order_id", "-- data_test unique order_id").annotations.dataTests).toHaveLength(1);
  });

  it.each([
    "-- data_test",
    "-- data_test unique",
    "-- data_test unique a b",
    "-- data_test not_null order-id",
    "-- data_test accepted_values status",
    "-- data_test accepted_values status = a,,b",
    "-- data_test relationships c -> ducklake://main/x",
    "-- data_test relationships c ducklake://main/x.id",
    "-- data_test between amount 0 100",
    "-- data_test f/../secret",
  ])("malformed lines drop fail-safe: %s", (line) => {
    const r = sql(line, "-- data_test unique order_id");
    expect(r.annotations.dataTests).toEqual([{ kind: "unique", column: "order_id", line: 5 }]);
    expect(codes(r)).toEqual(["warning:4:DATA_TEST_MALFORMED"]);
  });

  it("is rejected without // materialize", () => {
    const r = parseAnnotations("-- pipeline\n-- data_test unique id\nSELECT 1", { language: "sql" });
    expect(codes(r)).toEqual(["error:2:DATA_TEST_WITHOUT_MATERIALIZE"]);
  });

  it("is rejected on // materialize manual", () => {
    const r = parseAnnotations(
      "-- pipeline\n-- materialize manual ducklake://main/t\n-- data_test unique id\nSELECT 1",
      { language: "sql" },
    );
    expect(codes(r)).toEqual(["error:3:DATA_TEST_ON_MANUAL"]);
  });

  it("is not reported twice when the materialize line itself failed", () => {
    const r = parseAnnotations("-- materialize s3://x/y\n-- data_test unique id\nSELECT 1", { language: "sql" });
    expect(codes(r)).toEqual(["error:1:MATERIALIZE_TARGET_NOT_DUCKLAKE"]);
  });
});

describe("// column <out> <- <asset-uri>.<col>[, …]", () => {
  it("maps one output column to its sources", () => {
    const r = sql("-- column order_total <- ducklake://warehouse/orders.amount, ducklake://warehouse/orders.tax");
    expect(r.annotations.columns).toEqual([
      {
        output: "order_total",
        sources: [
          { asset: "ducklake://warehouse/orders", column: "amount" },
          { asset: "ducklake://warehouse/orders", column: "tax" },
        ],
        lines: [4],
      },
    ]);
  });

  it("accumulates across lines and merges the same output", () => {
    const r = sql(
      "-- column a <- s3://x/y.parquet.c1",
      "-- column b <- ducklake://w/t.c2",
      "-- column a <- ducklake://w/t.c3, s3://x/y.parquet.c1",
    );
    expect(r.annotations.columns).toEqual([
      {
        output: "a",
        sources: [
          { asset: "s3://x/y.parquet", column: "c1" },
          { asset: "ducklake://w/t", column: "c3" },
        ],
        lines: [4, 6],
      },
      { output: "b", sources: [{ asset: "ducklake://w/t", column: "c2" }], lines: [5] },
    ]);
  });

  it("works in any language (polyglot transforms)", () => {
    const r = parseAnnotations("# column total <- ducklake://w/orders.amount", { path: "t.py" });
    expect(r.annotations.columns[0]?.output).toBe("total");
    expect(r.diagnostics).toEqual([]);
  });

  it.each([
    "-- column total",
    "-- column total <-",
    "-- column <- ducklake://w/t.c",
    "-- column total <- amount",
    "-- column total <- ducklake://w/t",
    "-- column total <- ducklake://w/t.c,",
    "-- column to-tal <- ducklake://w/t.c",
    "-- column total <- http://x/t.c",
  ])("malformed lines are ignored: %s", (line) => {
    const r = sql(line);
    expect(r.annotations.columns).toEqual([]);
    expect(codes(r)).toEqual(["warning:4:COLUMN_MALFORMED"]);
  });

  it("parseAssetColumn splits at the last dot", () => {
    expect(parseAssetColumn("s3://b/k.parquet.col")).toEqual({ asset: "s3://b/k.parquet", column: "col" });
    expect(parseAssetColumn("nodot")).toBeUndefined();
  });
});
