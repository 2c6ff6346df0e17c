import { describe, expect, it } from "vitest";
import { lastPerKey } from "./kv-batch.js";

describe("lastPerKey", () => {
  it("keeps one entry per key, its last value, in first-appearance order", () => {
    expect(
      lastPerKey([
        { key: "a", value: "1" },
        { key: "b", value: "2" },
        { key: "a", value: "3" },
      ]),
    ).toEqual([
      { key: "a", value: "3" },
      { key: "b", value: "2" },
    ]);
    expect(lastPerKey([])).toEqual([]);
  });
});
