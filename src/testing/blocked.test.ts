import { describe, expect, it } from "vitest";
import type { StepRecord } from "../store/types.js";
import { blocksOf, nextTimer } from "./blocked.js";

function step(over: Partial<StepRecord>): StepRecord {
  return {
    runId: "r",
    key: "k",
    kind: "step",
    target: null,
    status: "done",
    value: null,
    error: null,
    childId: null,
    event: null,
    wakeAt: null,
    attempts: 1,
    position: 0,
    startedAt: 0,
    finishedAt: null,
    ...over,
  };
}

describe("blocksOf", () => {
  it("names pending approvals and signal waits without a deadline, and nothing a timer ends", () => {
    const steps = [
      step({ key: "paid", kind: "wait", status: "pending", event: "paid:1" }),
      step({ key: "ok", kind: "approval", status: "pending" }),
      step({ key: "late", kind: "wait", status: "pending", event: "late", wakeAt: 5 }),
      step({ key: "nap", kind: "sleep", status: "pending", wakeAt: 9 }),
      step({ key: "old", kind: "wait", status: "done", event: "old" }),
    ];
    expect(blocksOf(steps)).toEqual([
      { kind: "signal", key: "paid", event: "paid:1" },
      { kind: "approval", key: "ok", event: null },
    ]);
  });
});

describe("nextTimer", () => {
  it("is the earliest ready time, or null when no waiting run has one", () => {
    expect(nextTimer([{ readyAt: 30 }, { readyAt: null }, { readyAt: 10 }])).toBe(10);
    expect(nextTimer([{ readyAt: null }])).toBeNull();
    expect(nextTimer([])).toBeNull();
  });
});
