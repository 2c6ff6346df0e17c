import { describe, expect, it } from "vitest";
import { bucketActivity, overviewRange, parseOverviewWindow } from "./overview-buckets.js";

describe("overview windows", () => {
  it("parses 1h (default) and 1d, refuses anything else with the choices", () => {
    expect(parseOverviewWindow(undefined)).toBe("1h");
    expect(parseOverviewWindow("")).toBe("1h");
    expect(parseOverviewWindow("1d")).toBe("1d");
    expect(() => parseOverviewWindow("7d")).toThrow(/use 1h or 1d/);
    try {
      parseOverviewWindow("2h");
    } catch (e) {
      expect((e as { code: string }).code).toBe("INVALID_OVERVIEW_WINDOW");
    }
  });

  it("aligns buckets to their width and ends with the bucket holding now", () => {
    const now = Date.UTC(2026, 0, 2, 10, 30, 45, 500);
    const h = overviewRange("1h", now);
    expect(h).toEqual({ from: Date.UTC(2026, 0, 2, 9, 31), bucketMs: 60_000, buckets: 60 });
    expect(h.from + (h.buckets - 1) * h.bucketMs).toBeLessThanOrEqual(now);
    expect(h.from + h.buckets * h.bucketMs).toBeGreaterThan(now);
    const d = overviewRange("1d", now);
    expect(d.bucketMs).toBe(900_000);
    expect(d.from % d.bucketMs).toBe(0);
    expect(d.from + d.buckets * d.bucketMs).toBeGreaterThan(now);
    expect(now - d.from).toBeLessThanOrEqual(24 * 3_600_000);
    // On an exact edge the new bucket is the last one.
    expect(overviewRange("1h", Date.UTC(2026, 0, 2, 10, 30)).from).toBe(Date.UTC(2026, 0, 2, 9, 31));
  });
});

describe("bucketActivity", () => {
  const range = { from: 1_000, bucketMs: 100, buckets: 4 };

  it("gives one row per bucket, zeros where nothing happened", () => {
    const rows = bucketActivity(range, [], 0);
    expect(rows.map((r) => r.start)).toEqual([1_000, 1_100, 1_200, 1_300]);
    expect(rows.every((r) => r.enqueued === 0 && r.finished === 0 && r.queued === 0)).toBe(true);
  });

  it("sums finishes into throughput and follows the queue from its depth at the start", () => {
    const rows = bucketActivity(
      range,
      [
        { bucket: 0, event: "enqueued", topLevel: true, count: 5 },
        { bucket: 0, event: "started", topLevel: true, count: 2 },
        { bucket: 1, event: "started", topLevel: true, count: 3 },
        { bucket: 1, event: "succeeded", topLevel: true, count: 2 },
        { bucket: 1, event: "failed", topLevel: true, count: 1 },
        { bucket: 2, event: "left-unstarted", topLevel: true, count: 1 },
        { bucket: 3, event: "cancelled", topLevel: true, count: 1 },
        { bucket: 3, event: "enqueued", topLevel: true, count: 4 },
      ],
      3,
    );
    expect(rows.map((r) => r.queued)).toEqual([6, 3, 2, 6]);
    expect(rows.map((r) => r.finished)).toEqual([0, 3, 1, 1]);
    expect(rows[1]).toMatchObject({ succeeded: 2, failed: 1, cancelled: 0 });
    expect(rows[2]).toMatchObject({ cancelled: 1, started: 0 });
  });

  it("counts top-level runs only, as the Runs page lists them, while the queue counts children too", () => {
    const rows = bucketActivity(
      range,
      [
        { bucket: 0, event: "enqueued", topLevel: true, count: 1 },
        { bucket: 0, event: "enqueued", topLevel: false, count: 3 },
        { bucket: 0, event: "started", topLevel: true, count: 1 },
        { bucket: 1, event: "started", topLevel: false, count: 2 },
        { bucket: 1, event: "failed", topLevel: false, count: 1 }, // a task child its parent recovered from
        { bucket: 1, event: "succeeded", topLevel: false, count: 1 },
        { bucket: 2, event: "left-unstarted", topLevel: false, count: 1 },
        { bucket: 3, event: "succeeded", topLevel: true, count: 1 },
      ],
      0,
    );
    expect(rows.map((r) => r.failed)).toEqual([0, 0, 0, 0]);
    expect(rows.map((r) => r.finished)).toEqual([0, 0, 0, 1]);
    expect(rows.map((r) => r.enqueued)).toEqual([1, 0, 0, 0]);
    expect(rows.map((r) => r.cancelled)).toEqual([0, 0, 0, 0]);
    expect(rows.map((r) => r.queued)).toEqual([3, 1, 0, 0]);
  });

  it("puts counts outside the range into the nearest bucket instead of losing them", () => {
    const rows = bucketActivity(
      range,
      [
        { bucket: 4, event: "enqueued", topLevel: true, count: 1 },
        { bucket: -1, event: "failed", topLevel: true, count: 2 },
      ],
      0,
    );
    expect(rows[3]!.enqueued).toBe(1);
    expect(rows[0]!.failed).toBe(2);
    expect(rows[3]!.queued).toBe(1);
  });
});
