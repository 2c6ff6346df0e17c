import { describe, expect, it } from "vitest";
import { FollowCursor } from "./log-follow.js";

const lines = (...seqs: number[]) => seqs.map((seq) => ({ seq }));

describe("FollowCursor", () => {
  it("prints a line that became visible after higher ones, and none twice", () => {
    // The log ended at 11 when following started; 10 and 11 were there (the first page printed them).
    const c = new FollowCursor(11, 0, 1_000, 5);
    expect(c.after).toBe(6);
    c.known(lines(8, 10, 11));
    // 12 is still in a transaction; 13 committed first.
    expect(c.fresh(lines(8, 10, 11, 13))).toEqual(lines(13));
    c.settle(100, 13);
    expect(c.after).toBe(6);
    expect(c.fresh(lines(8, 10, 11, 12, 13))).toEqual(lines(12));
    c.settle(500, 13);
    // Settled up to the log's end as read a second before: the mark moves, the older seqs are forgotten.
    c.settle(1_000, 13);
    expect(c.after).toBe(11);
    c.settle(1_100, 14);
    expect(c.after).toBe(13);
    expect(c.fresh(lines(14))).toEqual(lines(14));
  });

  it("prints a line stored after it started whatever its place in the window, but not one stored before", () => {
    const c = new FollowCursor(100, 0, 1_000, 10);
    expect(c.after).toBe(90);
    // Stored before: 95 and 99 (say, older than --since: not in the first page, never printed).
    c.known(lines(95, 99));
    // 97 was numbered before the start and commits after it: printed once.
    expect(c.fresh(lines(95, 97, 99, 101))).toEqual(lines(97, 101));
    expect(c.fresh(lines(95, 97, 99, 101))).toEqual([]);
  });

  it("follows the end of the whole log, not the last line that matched, so each read is a short range", () => {
    // A follow of a workflow that has printed nothing for a long while: its last line is far below.
    const c = new FollowCursor(1_000_000, 0, 1_000, 10_000);
    expect(c.after).toBe(990_000);
    for (let t = 0, head = 1_000_000; t <= 3_000; t += 500, head += 5_000) {
      expect(c.fresh([])).toEqual([]);
      c.settle(t, head);
    }
    // Nothing matched, yet the mark is the log's end as read a second ago: the next read starts there.
    expect(c.after).toBe(1_020_000);
  });

  it("starts from the beginning of a short log", () => {
    const c = new FollowCursor(2, 0, 1_000);
    expect(c.after).toBe(0);
    c.known(lines(1, 2));
    expect(c.fresh(lines(1, 2, 3))).toEqual(lines(3));
    c.settle(0, 3);
    c.settle(2_000, 3);
    expect(c.after).toBe(3);
    expect(c.fresh(lines(3, 4))).toEqual(lines(4));
  });
});
