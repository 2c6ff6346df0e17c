import { describe, expect, it } from "vitest";
import type { RunRecord } from "../store/types.js";
import { percentile, unfinishedCounts, workflowStats } from "./stats.js";

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
      { active: 2, queued: 1, scheduled: 0 },
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
      queued: 1,
      scheduled: 0,
    });
    expect(workflowStats([], { active: 0, queued: 0, scheduled: 0 })).toMatchObject({
      sample: 0,
      successRate: null,
      p50DurationMs: null,
    });
  });
});

describe("unfinishedCounts", () => {
  it("counts running and waiting runs as active, a pending run as queued, or scheduled when it is due later", () => {
    const now = 10_000;
    const r = (status: RunRecord["status"], readyAt: number | null) => ({ status, readyAt }) as RunRecord;
    expect(
      unfinishedCounts(
        [r("running", 1), r("waiting", null), r("pending", now), r("pending", null), r("pending", now + 3_600_000)],
        now,
      ),
    ).toEqual({ active: 2, queued: 2, scheduled: 1 });
  });
});
