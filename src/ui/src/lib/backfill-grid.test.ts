import { describe, expect, it } from "vitest";
import type { BackfillProgress } from "../../../pipeline/runtime/backfill-progress";
import { gridCells, gridSummary } from "./backfill-grid";

const progress = {
  id: "b1",
  status: "running",
  folder: "f/d",
  scheme: null,
  steps: ["f/d/a.ts"],
  concurrency: 2,
  force: false,
  resumeOf: null,
  createdAt: 0,
  finishedAt: null,
  error: null,
  partitions: [
    { partition: "2026-05-01", state: "skipped", run: null, error: null },
    { partition: "2026-05-02", state: "failed", run: "p2", error: "boom" },
    { partition: "2026-05-03", state: "waiting", run: "p3", error: null },
    { partition: "2026-05-04", state: "queued", run: null, error: null },
  ],
  counts: { queued: 1, skipped: 1, pending: 0, running: 0, waiting: 1, succeeded: 0, failed: 1, cancelled: 0 },
  finished: 2,
} satisfies BackfillProgress;

describe("backfill grid", () => {
  it("colours each partition by its state and says why in the tooltip", () => {
    expect(gridCells(progress).map((c) => [c.partition, c.className, c.title, c.run])).toEqual([
      ["2026-05-01", "st-skipped", "2026-05-01: skipped (already done)", null],
      ["2026-05-02", "st-failed", "2026-05-02: failed — boom", "p2"],
      ["2026-05-03", "st-running", "2026-05-03: running", "p3"],
      ["2026-05-04", "st-pending", "2026-05-04: queued", null],
    ]);
  });
  it("summarises the counts", () => {
    expect(gridSummary(progress)).toBe("2/4 finished · 1 skipped, 1 failed, 1 running, 1 queued");
  });
});
