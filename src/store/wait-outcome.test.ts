import { describe, expect, it } from "vitest";
import { waitOutcome, type WaitFacts } from "./wait-outcome.js";

const waiting: WaitFacts["run"] = { status: "waiting", createdBy: "alice" };
const pending = { kind: "approval", status: "pending", wakeAt: 1000, finishedAt: null };
const req = { kind: "approval" as const };

describe("waitOutcome", () => {
  it("resolves an open approval, refuses the creator when selfApproval is false", () => {
    expect(waitOutcome({ run: waiting, step: pending }, req, 500)).toBe("resolved");
    expect(
      waitOutcome(
        { run: waiting, step: pending },
        { ...req, creatorMayDecide: false, audit: { actor: "alice", decision: "approve", via: "t" } },
        500,
      ),
    ).toBe("forbidden");
  });

  it("tells a late decision (expired) from a repeated one (already-decided)", () => {
    expect(waitOutcome({ run: waiting, step: pending }, req, 1000)).toBe("expired");
    // The worker closed the step at its deadline (the timeout): still "expired".
    expect(
      waitOutcome(
        { run: { status: "succeeded", createdBy: null }, step: { ...pending, status: "done", finishedAt: 1004 } },
        req,
        2000,
      ),
    ).toBe("expired");
    // Someone decided before the deadline.
    expect(waitOutcome({ run: waiting, step: { ...pending, status: "done", finishedAt: 600 } }, req, 2000)).toBe(
      "already-decided",
    );
    expect(
      waitOutcome({ run: waiting, step: { ...pending, wakeAt: null, status: "done", finishedAt: 600 } }, req, 2000),
    ).toBe("already-decided");
  });

  it("refuses a missing run or step, another kind, and a run that no longer waits", () => {
    expect(waitOutcome({ run: null, step: null }, req, 0)).toBe("not-found");
    expect(waitOutcome({ run: waiting, step: null }, req, 0)).toBe("not-found");
    expect(waitOutcome({ run: waiting, step: { ...pending, kind: "wait" } }, req, 0)).toBe("not-found");
    expect(waitOutcome({ run: { status: "cancelled", createdBy: null }, step: pending }, req, 0)).toBe("not-waiting");
  });
});
