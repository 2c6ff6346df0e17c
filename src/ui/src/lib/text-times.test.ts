import { describe, expect, it } from "vitest";
import { splitTimes } from "./text-times";

describe("splitTimes", () => {
  it("splits a sentence around its ISO UTC times, leaving bare dates as text", () => {
    expect(
      splitTimes("window 1 for 2026-05-16 opened; the run starts at 2026-12-03T12:36:38.560Z with the last write"),
    ).toEqual([
      { text: "window 1 for 2026-05-16 opened; the run starts at " },
      { iso: "2026-12-03T12:36:38.560Z" },
      { text: " with the last write" },
    ]);
    expect(splitTimes("2026-12-03T12:36:38Z")).toEqual([{ iso: "2026-12-03T12:36:38Z" }]);
    expect(splitTimes("no time here")).toEqual([{ text: "no time here" }]);
    expect(splitTimes("")).toEqual([]);
  });

  it("leaves text that only looks like a time (month 13) alone", () => {
    expect(splitTimes("at 2026-13-03T12:36:38Z")).toEqual([{ text: "at 2026-13-03T12:36:38Z" }]);
  });
});
