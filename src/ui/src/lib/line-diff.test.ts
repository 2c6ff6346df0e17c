import { describe, expect, it } from "vitest";
import { lineDiff } from "./line-diff";

const kinds = (before: string | null, after: string | null) =>
  lineDiff(before, after).map((r) => `${r.kind === "same" ? " " : r.kind === "add" ? "+" : "-"}${r.text}`);

describe("lineDiff", () => {
  it("keeps common lines and marks the changed ones, deletions before additions", () => {
    expect(kinds("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual([" a", "-b", "+B", " c", "+d"]);
  });

  it("numbers lines on each side", () => {
    expect(lineDiff("x\ny\n", "y\n")).toEqual([
      { kind: "del", text: "x", oldNo: 1, newNo: null },
      { kind: "same", text: "y", oldNo: 2, newNo: 1 },
    ]);
  });

  it("treats an absent side as empty", () => {
    expect(kinds(null, "new\n")).toEqual(["+new"]);
    expect(kinds("old", null)).toEqual(["-old"]);
    expect(kinds("same\n", "same\n")).toEqual([" same"]);
  });
});
