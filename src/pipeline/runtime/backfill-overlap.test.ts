import { describe, expect, it } from "vitest";
import { findBackfillOverlap } from "./backfill-overlap.js";
import type { BackfillPayload } from "./backfill-workflow.js";

const daily = (partitions: string[], steps = ["a.ts", "b.ts"], folder = "f/daily"): BackfillPayload => ({
  folder,
  steps,
  partitions,
});

describe("findBackfillOverlap", () => {
  it("names the unfinished backfill sharing partitions and steps, with the shared partitions in order", () => {
    const next = daily(["2026-01-01", "2026-01-02", "2026-01-03"]);
    const active = [
      { id: "other-folder", payload: daily(["2026-01-02"], ["a.ts"], "f/weekly") },
      { id: "bf1", payload: daily(["2026-01-03", "2026-01-02", "2026-01-09"], ["b.ts"]) },
    ];
    expect(findBackfillOverlap(next, active)).toEqual({ id: "bf1", partitions: ["2026-01-02", "2026-01-03"] });
  });

  it("lets disjoint ranges, other steps and other folders run side by side", () => {
    const next = daily(["2026-01-01", "2026-01-02"], ["a.ts"]);
    expect(
      findBackfillOverlap(next, [
        { id: "later", payload: daily(["2026-01-03"]) },
        { id: "other-step", payload: daily(["2026-01-01"], ["b.ts"]) },
        { id: "other-folder", payload: daily(["2026-01-01"], ["a.ts"], "f/other") },
      ]),
    ).toBeNull();
  });

  it("counts the mapped stages of either side", () => {
    const next = { ...daily(["2026-01-05"], ["a.ts"]), mapped: [{ steps: ["w.ts"], partitions: ["2026-W02"] }] };
    const other = daily(["2026-W02"], ["w.ts"]);
    expect(findBackfillOverlap(next, [{ id: "weekly", payload: other }])).toEqual({
      id: "weekly",
      partitions: ["2026-W02"],
    });
  });
});
