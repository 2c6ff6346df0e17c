import { describe, expect, it } from "vitest";
import type { RunRecord } from "../store/types.js";
import { percentile, workflowStats } from "./stats.js";

const run = (status: RunRecord["status"], ms: number): RunRecord =>
  ({ status, startedAt: 1000, finishedAt: 1000 + ms }) as RunRecord;

describe("percentile (nearest rank)", () => {
  it("picks the value at the rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2], 50)).toBe(1);
    expect(percentile([], 50)).toBeNull();
  });
});

describe("workflowStats", () => {
  it("counts outcomes; the success rate leaves out cancelled runs; durations of finished attempts", () => {
    const stats = workflowStats(
      [run("succeeded", 100), run("succeeded", 300), run("failed", 200), run("cancelled", 5)],
      2,
    );
    expect(stats).toEqual({
      sample: 4,
      succeeded: 2,
      failed: 1,
      cancelled: 1,
      successRate: 2 / 3,
      p50DurationMs: 200,
      p95DurationMs: 300,
      active: 2,
    });
    expect(workflowStats([], 0)).toMatchObject({ sample: 0, successRate: null, p50DurationMs: null });
  });
});
