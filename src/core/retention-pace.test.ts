import { describe, expect, it } from "vitest";
import { defaultRetentionPace, nextRetentionBatch, retentionRestMs } from "./retention-pace.js";

describe("retention pacing", () => {
  const pace = defaultRetentionPace(500);

  it("shrinks a batch that took longer than the budget in proportion, not below the minimum", () => {
    expect(nextRetentionBatch(500, 75, pace)).toBe(100);
    expect(nextRetentionBatch(100, 30, pace)).toBe(50);
    expect(nextRetentionBatch(30, 1_000, pace)).toBe(20);
  });

  it("doubles a batch that took under half the budget, up to the maximum; keeps one near it", () => {
    expect(nextRetentionBatch(20, 2, pace)).toBe(40);
    expect(nextRetentionBatch(400, 5, pace)).toBe(500);
    expect(nextRetentionBatch(200, 12, pace)).toBe(200);
  });

  it("rests twice as long as the transaction held the database, at least the minimum", () => {
    expect(retentionRestMs(15.2, pace)).toBe(31);
    expect(retentionRestMs(0.5, pace)).toBe(10);
  });

  it("never starts above a small maximum", () => {
    expect(defaultRetentionPace(2).minBatch).toBe(2);
    expect(nextRetentionBatch(2, 1, defaultRetentionPace(2))).toBe(2);
  });
});
