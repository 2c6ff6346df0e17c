import { describe, expect, it } from "vitest";
import { chartPoints, clockLabel } from "./overview-chart";

describe("overview chart points", () => {
  it("labels buckets HH:MM and keeps the three series", () => {
    const start = new Date(2026, 0, 2, 9, 5).toISOString();
    expect(clockLabel(start)).toBe("09:05");
    const b = { start, enqueued: 4, started: 3, finished: 3, succeeded: 2, failed: 1, cancelled: 0, queued: 7 };
    expect(chartPoints([b])).toEqual([{ label: "09:05", finished: 3, failed: 1, queued: 7 }]);
  });
});
