import { describe, expect, it } from "vitest";
import { CRASH_POINTS, parseCrashPoint } from "./crash-points.js";
import { InvalidInputError } from "../core/errors.js";

describe("SLUICE_TEST_CRASH_AT", () => {
  it("is off when unset or empty", () => {
    expect(parseCrashPoint(undefined)).toBeNull();
    expect(parseCrashPoint("")).toBeNull();
  });

  it("accepts each crash point", () => {
    for (const point of CRASH_POINTS) expect(parseCrashPoint(point)).toBe(point);
  });

  it("refuses an unknown point, naming the valid ones", () => {
    expect(() => parseCrashPoint("after-lunch")).toThrow(InvalidInputError);
    expect(() => parseCrashPoint("after-lunch")).toThrow(/after-claim, after-step-body/);
  });
});
