import { describe, expect, it } from "vitest";
import { PipelineCycleError } from "./errors.js";
import { findCycle, longestPath, topologicalOrder } from "./topo-order.js";

const e = (from: string, to: string) => ({ from, to });

describe("topologicalOrder", () => {
  it("orders a diamond deterministically (ties by id)", () => {
    expect(topologicalOrder(["d", "c", "b", "a"], [e("a", "b"), e("a", "c"), e("b", "d"), e("c", "d")])).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
  });

  it("keeps tie order stable as nodes become ready", () => {
    expect(topologicalOrder(["z", "a", "m"], [e("z", "a")])).toEqual(["m", "z", "a"]);
  });

  it("ignores edges to ids outside the set and duplicate edges", () => {
    expect(topologicalOrder(["a", "b"], [e("a", "b"), e("a", "b"), e("x", "a"), e("b", "y")])).toEqual(["a", "b"]);
  });

  it("throws PipelineCycleError naming a cycle", () => {
    try {
      topologicalOrder(["a", "b", "c", "d"], [e("a", "b"), e("b", "c"), e("c", "b"), e("c", "d")]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PipelineCycleError);
      expect((err as PipelineCycleError).code).toBe("PIPELINE_CYCLE");
      expect((err as PipelineCycleError).cycle).toEqual(["b", "c", "b"]);
      expect((err as Error).message).toContain("b -> c -> b");
    }
  });

  it("self-loops are cycles", () => {
    expect(findCycle(["a"], [e("a", "a")])).toEqual(["a", "a"]);
    expect(findCycle(["a", "b"], [e("a", "b")])).toBeUndefined();
  });
});

describe("longestPath", () => {
  it("finds the longest chain, and stops at cycles", () => {
    const chain = ["a", "b", "c", "d"].map((x, i, all) => ({ from: x, to: all[i + 1] ?? "" })).slice(0, 3);
    expect(longestPath(["d", "c", "b", "a"], chain)).toEqual(["a", "b", "c", "d"]);
    expect(longestPath(["a", "b", "x"], [...chain, { from: "x", to: "b" }])).toEqual(["a", "b", "c", "d"]);
    expect(
      longestPath(
        ["a", "b"],
        [
          { from: "a", to: "b" },
          { from: "b", to: "a" },
        ],
      ),
    ).toHaveLength(2);
    expect(longestPath([], [])).toEqual([]);
  });
});
