import { describe, expect, it } from "vitest";
import { KeyCounter } from "./keys.js";

describe("KeyCounter", () => {
  it("numbers repeated names name, name#2, name#3", () => {
    const keys = new KeyCounter();
    expect([keys.next("a").key, keys.next("b").key, keys.next("a").key, keys.next("a").key]).toEqual([
      "a",
      "b",
      "a#2",
      "a#3",
    ]);
  });

  it("join takes the highest count per name and marks uneven names uncertain", () => {
    const keys = new KeyCounter();
    keys.next("a");
    const base = keys.snapshot();
    keys.next("a");
    keys.next("b");
    const left = keys.snapshot();
    keys.restore(base);
    keys.next("a");
    const right = keys.snapshot();
    keys.join([left, right]);
    expect(keys.next("a")).toEqual({ key: "a#3", uncertain: false });
    expect(keys.next("b")).toEqual({ key: "b#2", uncertain: true });
  });

  it("markChangedSince flags every name used after a snapshot", () => {
    const keys = new KeyCounter();
    keys.next("x");
    const before = keys.snapshot();
    keys.next("y");
    keys.markChangedSince(before);
    expect(keys.isUncertain("x")).toBe(false);
    expect(keys.isUncertain("y")).toBe(true);
  });
});
