import { describe, expect, it } from "vitest";
import type { RunRecord } from "../store/types.js";
import { describeReclaim } from "./reclaim.js";

/** The parts of a run record the log line reads. */
const run = (attempt: number, maxAttempts: number) => ({ id: "r1", workflow: "wf", attempt, maxAttempts }) as RunRecord;

describe("describeReclaim", () => {
  it("says an expired lease expired, and what happens next", () => {
    expect(describeReclaim({ run: run(2, 3), outcome: "retry", attempt: 1, released: null })).toBe(
      "run r1 (wf): the lease of attempt 1 expired (its worker stopped heartbeating); attempt 2/3 is queued",
    );
    expect(describeReclaim({ run: run(3, 3), outcome: "failed", attempt: 3, released: null })).toBe(
      "run r1 (wf): the lease of attempt 3 expired (its worker stopped heartbeating); that was its last attempt: failed",
    );
  });

  it("says a released claim was released, and why (not that its lease expired)", () => {
    expect(describeReclaim({ run: run(2, 3), outcome: "retry", attempt: 1, released: "worker-exited" })).toBe(
      "run r1 (wf): attempt 1 was released (its worker process exited); attempt 2/3 is queued",
    );
    expect(describeReclaim({ run: run(1, 1), outcome: "failed", attempt: 1, released: "drain-timeout" })).toBe(
      "run r1 (wf): attempt 1 was released (its worker stopped with it still running after its drain timeout); that was its last attempt: failed",
    );
  });
});
