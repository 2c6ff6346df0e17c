import { describe, expect, it } from "vitest";
import { formatMillis, toMillis } from "./duration.js";

describe("toMillis", () => {
  it("treats numbers as milliseconds", () => {
    expect(toMillis(1500)).toBe(1500);
    expect(toMillis(24 * 60 * 60 * 1000)).toBe(86_400_000);
  });
  it("parses unit strings, compound strings and objects", () => {
    expect(toMillis("30s")).toBe(30_000);
    expect(toMillis("5m")).toBe(300_000);
    expect(toMillis("1h30m")).toBe(5_400_000);
    expect(toMillis("2 days")).toBe(172_800_000);
    expect(toMillis("250")).toBe(250);
    expect(toMillis({ seconds: 2, ms: 5 })).toBe(2_005);
    expect(toMillis({ days: 1 })).toBe(86_400_000);
  });
  it("rejects garbage, negatives and unknown fields with a clear error", () => {
    for (const bad of [
      "",
      "soon",
      "5 parsecs",
      "1h banana",
      -1,
      Number.NaN,
      Infinity,
      { weeks: 1 },
      { seconds: "2" },
    ]) {
      expect(() => toMillis(bad as never)).toThrowError(/invalid duration .*use milliseconds/);
    }
  });
});

describe("formatMillis", () => {
  it("formats for people", () => {
    expect(formatMillis(250)).toBe("250ms");
    expect(formatMillis(1_234)).toBe("1.23s");
    expect(formatMillis(184_000)).toBe("3m 4s");
    expect(formatMillis(3_780_000)).toBe("1h 3m");
    expect(formatMillis(119_700)).toBe("2m 0s");
    expect(formatMillis(3_599_700)).toBe("1h 0m");
  });
});
