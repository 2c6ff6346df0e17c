/** The built-in data tests on a real DuckDB slice, each with passing and offending rows. */
import { describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { DataTestsFailedError, runSliceTests, type SliceTest } from "../../src/lake/data-tests.js";

describe("slice data tests", () => {
  it("counts offending rows with examples for every built-in kind and custom scripts over the view slice", async () => {
    const tests: SliceTest[] = [
      { kind: "not_null", column: "id" },
      { kind: "not_null", column: "customer" },
      { kind: "unique", column: "id" },
      { kind: "unique", column: "customer" },
      { kind: "accepted_values", column: "status", values: ["paid", "new"] },
      { kind: "accepted_values", column: "status", values: ["paid", "new", "odd"] },
      { kind: "relationships", column: "customer", references: { asset: "ducklake://main/customers", column: "id" } },
      { kind: "relationships", column: "id", references: { asset: "ducklake://main/customers", column: "id" } },
      { kind: "script", path: "f/tests/custom" },
      { kind: "script", path: "f/tests/clean" },
      { kind: "script", path: "f/tests/missing" },
    ];
    const outcomes = await withDuckDb([], async (conn) => {
      await conn.run(
        "CREATE TEMP TABLE s AS SELECT * FROM (VALUES (1, 10, 'paid'), (2, 10, 'new'), (3, NULL, 'odd'), (4, 99, NULL)) v(id, customer, status)",
      );
      return runSliceTests(
        conn,
        "s",
        tests,
        async (asset) => {
          expect(asset).toBe("ducklake://main/customers");
          return "SELECT * FROM (VALUES (1), (2), (3), (4), (10)) c(id)";
        },
        async (path) => {
          if (path === "f/tests/custom") return "SELECT id, status FROM slice WHERE id > 3;";
          if (path === "f/tests/clean") return "SELECT * FROM slice WHERE id > 100";
          throw new Error(`no file for ${path}`);
        },
      );
    });
    expect(outcomes.map((o) => [o.test, o.passed, o.offending, o.examples])).toEqual([
      ["not_null id", true, 0, []],
      ["not_null customer", false, 1, [null]],
      ["unique id", true, 0, []],
      ["unique customer", false, 2, [10]],
      ["accepted_values status = paid,new", false, 1, ["odd"]],
      ["accepted_values status = paid,new,odd", true, 0, []],
      ["relationships customer -> ducklake://main/customers.id", false, 1, [99]],
      ["relationships id -> ducklake://main/customers.id", true, 0, []],
      ["f/tests/custom", false, 1, [{ id: 4, status: null }]],
      ["f/tests/clean", true, 0, []],
      ["f/tests/missing", false, 0, []],
    ]);
    expect(outcomes[10]!.error).toBe("no file for f/tests/missing");
    expect(new DataTestsFailedError(outcomes).message).toMatch(/^6 of 11 data test\(s\) failed/);
  });
});
