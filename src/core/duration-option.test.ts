import { describe, expect, it } from "vitest";
import { InvalidDurationError } from "./errors.js";
import { durationOption } from "./duration-option.js";

describe("durationOption", () => {
  it("reads the new name as a Duration, else the deprecated ms alias, else the fallback", () => {
    expect(durationOption("2s", undefined, 30_000)).toBe(2_000);
    expect(durationOption({ minutes: 1 }, 5, 30_000)).toBe(60_000);
    expect(durationOption(250, undefined, 30_000)).toBe(250);
    expect(durationOption(undefined, 500, 30_000)).toBe(500);
    expect(durationOption(undefined, undefined, 30_000)).toBe(30_000);
    expect(durationOption(undefined, undefined)).toBeUndefined();
  });

  it("refuses what is not a duration, under either name", () => {
    expect(() => durationOption("soon", undefined, 1)).toThrow(InvalidDurationError);
    expect(() => durationOption(undefined, -1, 1)).toThrow(InvalidDurationError);
  });
});
