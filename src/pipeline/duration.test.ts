import { describe, expect, it } from "vitest";
import { parsePipelineDuration } from "./duration.js";

describe("parsePipelineDuration (seed duration grammar)", () => {
  it.each([
    ["90", 90],
    ["30s", 30],
    ["5m", 300],
    ["2h", 7200],
    ["1d", 86_400],
    [" 10s ", 10],
  ])("%j is %i seconds", (text, seconds) => {
    expect(parsePipelineDuration(text)?.seconds).toBe(seconds);
  });

  it("keeps the raw text", () => {
    expect(parsePipelineDuration("5m")).toEqual({ raw: "5m", seconds: 300 });
  });

  it.each(["0", "0s", "-5s", "1.5m", "5x", "5 m", "m", "", "1w", "5M", "1e3", "99999999999999999999d"])(
    "rejects %j (fail-safe: no duration)",
    (text) => {
      expect(parsePipelineDuration(text)).toBeUndefined();
    },
  );
});
