import { describe, expect, it } from "vitest";
import { FollowCursor } from "./log-follow.js";

const lines = (...seqs: number[]) => seqs.map((seq) => ({ seq }));

describe("FollowCursor", () => {
  it("prints a line that became visible after higher ones, and none twice", () => {
    const c = new FollowCursor([10, 11], 1_000);
    expect(c.after).toBe(9);
    // 12 is still in a transaction; 13 committed first.
    expect(c.fresh(lines(10, 11, 13))).toEqual(lines(13));
    c.settle(0);
    expect(c.after).toBe(9);
    expect(c.fresh(lines(10, 11, 12, 13))).toEqual(lines(12));
    c.settle(500);
    // Settled up to what was seen a second before: the mark moves, the older seqs are forgotten.
    c.settle(1_000);
    expect(c.after).toBe(13);
    expect(c.fresh(lines(14))).toEqual(lines(14));
  });

  it("starts from the beginning without a first page", () => {
    const c = new FollowCursor([], 1_000);
    expect(c.after).toBe(0);
    expect(c.fresh(lines(1, 2))).toEqual(lines(1, 2));
    c.settle(0);
    c.settle(2_000);
    expect(c.after).toBe(2);
    expect(c.fresh(lines(2, 3))).toEqual(lines(3));
  });
});
