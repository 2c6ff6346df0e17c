import { describe, expect, it } from "vitest";
import { parseCount, parseDurationOption, parseJsonArg, parseRunAtOption, parseStatuses } from "./options.js";

describe("CLI option parsing", () => {
  it("maps dead to failed and rejects unknown statuses", () => {
    expect(parseStatuses("dead,succeeded")).toEqual(["failed", "succeeded"]);
    expect(() => parseStatuses("done")).toThrow(/unknown status "done" for --status/);
  });
  it("parses run-at as ISO, epoch ms or a delay", () => {
    expect(parseRunAtOption("2026-12-01T09:00:00Z")).toBe(Date.UTC(2026, 11, 1, 9));
    expect(parseRunAtOption("10m", 1_000)).toBe(601_000);
    expect(parseRunAtOption("+1h", 0)).toBe(3_600_000);
    expect(parseRunAtOption("1764000000000")).toBe(1_764_000_000_000);
    expect(() => parseRunAtOption("soonish")).toThrow(/--run-at "soonish" is not a time/);
  });
  it("explains bad numbers, durations and JSON", () => {
    expect(parseCount("20", "--limit")).toBe(20);
    expect(() => parseCount("x", "--limit")).toThrow(/--limit must be a whole number/);
    expect(parseDurationOption("2m", "--timeout")).toBe(120_000);
    expect(() => parseDurationOption("5 parsecs", "--timeout")).toThrow(/--timeout "5 parsecs" is not a duration/);
    expect(parseJsonArg(undefined, "payload", {})).toEqual({});
    expect(() => parseJsonArg("{bad", "payload", {})).toThrow(/payload is not valid JSON/);
  });
});
