import { describe, expect, it } from "vitest";
import { dataTestOutcomes } from "./data-test-outcomes";

const outcome = { test: "unique order_id", passed: false, offending: 2, examples: [7] };

describe("dataTestOutcomes", () => {
  it("reads a published write's tests from its result", () => {
    const run = { status: "succeeded" as const, result: { rows: 2, tests: [outcome] }, error: null };
    expect(dataTestOutcomes(run)).toEqual([outcome]);
  });

  it("reads a failed audit's outcomes from its error", () => {
    const error = {
      name: "DataTestsFailedError",
      code: "LAKE_AUDIT_FAILED",
      message: "…",
      data: { outcomes: [outcome] },
    };
    expect(dataTestOutcomes({ status: "failed", result: null, error })).toEqual([outcome]);
  });

  it("lists nothing for other runs, and leaves out values not shaped as outcomes", () => {
    expect(dataTestOutcomes({ status: "succeeded", result: [1, 2], error: null })).toEqual([]);
    expect(
      dataTestOutcomes({
        status: "failed",
        result: null,
        error: { name: "E", message: "x", data: { outcomes: [outcome] } },
      }),
    ).toEqual([]);
    const odd = {
      status: "succeeded" as const,
      result: { tests: [null, "x", { test: 1 }, { test: "t", passed: true }] },
      error: null,
    };
    expect(dataTestOutcomes(odd)).toEqual([{ test: "t", passed: true, offending: 0, examples: [] }]);
  });
});
