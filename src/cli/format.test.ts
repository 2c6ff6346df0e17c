import { describe, expect, it } from "vitest";
import type { RunRecord } from "../store/types.js";
import { cancelledError } from "../store/run-errors.js";
import { errorSuffix, runReport } from "./format.js";

const run = (over: Partial<RunRecord>) => ({ id: "r1", workflow: "w", status: "cancelled", ...over }) as RunRecord;

describe("a run's error after its status", () => {
  it("says a cancellation's reason once (its stored message already starts with 'cancelled: ')", () => {
    expect(errorSuffix(run({ error: cancelledError("not needed") }))).toBe(": not needed");
    expect(errorSuffix(run({ error: cancelledError(null) }))).toBe("");
    // ctx.bail's error is not a CANCELLED one: its message is kept.
    expect(errorSuffix(run({ error: { name: "SluiceError", code: "BAILED", message: "bailed: too late" } }))).toBe(
      ": bailed: too late",
    );
    expect(errorSuffix(run({ status: "failed", error: { name: "Error", message: "boom" } }))).toBe(": boom");
    expect(errorSuffix(run({ status: "succeeded", error: null }))).toBe("");
  });

  it("sluice show prints 'Cancelled [CANCELLED]: <reason>'", () => {
    const report = runReport(
      run({
        error: cancelledError("user said so"),
        attempt: 1,
        maxAttempts: 3,
        createdAt: 0,
        startedAt: null,
        finishedAt: null,
        payload: "{}",
        result: null,
        parentId: null,
      }),
      [],
      [],
      [],
    );
    expect(report).toMatch(/^error {5}Cancelled \[CANCELLED\]: user said so$/m);
  });
});
