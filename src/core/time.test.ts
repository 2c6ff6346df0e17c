import { describe, expect, it } from "vitest";
import { isAcceptedDuration, isAcceptedTime, isoOrNull, MAX_DURATION_MS, MAX_TIME_MS, timeText } from "./time.js";

describe("accepted times and durations", () => {
  it("accepts 1970 to the end of 9999, and durations up to 1000 years", () => {
    expect(isAcceptedTime(0)).toBe(true);
    expect(isAcceptedTime(MAX_TIME_MS)).toBe(true);
    expect(new Date(MAX_TIME_MS).toISOString()).toBe("9999-12-31T23:59:59.999Z");
    for (const bad of [MAX_TIME_MS + 1, 1e300, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e20])
      expect(isAcceptedTime(bad)).toBe(false);
    expect(isAcceptedDuration(MAX_DURATION_MS)).toBe(true);
    for (const bad of [MAX_DURATION_MS + 1, 1e300, -1, Number.NaN]) expect(isAcceptedDuration(bad)).toBe(false);
    // Now plus the longest duration is still an accepted time for the next ~7000 years.
    expect(isAcceptedTime(Date.UTC(2100, 0, 1) + MAX_DURATION_MS)).toBe(true);
  });
});

describe("rendering stored times never throws", () => {
  it("gives ISO for dates and null for anything else", () => {
    expect(isoOrNull(0)).toBe("1970-01-01T00:00:00.000Z");
    for (const bad of [1e300, -1e300, Number.NaN, "12", null, undefined]) expect(isoOrNull(bad)).toBeNull();
  });
  it("gives people a date, a dash, or says the value is not a time", () => {
    expect(timeText(Date.UTC(2026, 10, 29, 22, 33, 52))).toBe("2026-11-29 22:33:52");
    expect(timeText(null)).toBe("-");
    expect(timeText(1e300)).toBe("invalid time (1e+300)");
    expect(timeText("soon")).toBe("invalid time (soon)");
  });
});
