import { describe, expect, it } from "vitest";
import { DEFAULT_SWEEP_AGE_MS, intervalMs, sweepAgeMs } from "./sweep-age.js";

describe("sweep age", () => {
  it("reads DuckDB intervals", () => {
    expect(intervalMs("1 week")).toBe(7 * 86_400_000);
    expect(intervalMs("1 day 12 hours")).toBe(36 * 3_600_000);
    expect(intervalMs("30 minutes")).toBe(1_800_000);
    expect(intervalMs("soon")).toBeUndefined();
    expect(intervalMs("2 fortnights")).toBeUndefined();
  });
  it("prefers the override, then the lake's delete_older_than, then one day", () => {
    expect(sweepAgeMs({ delete_older_than: "2 days" }, 5)).toBe(5);
    expect(sweepAgeMs({ delete_older_than: "2 days" })).toBe(2 * 86_400_000);
    expect(sweepAgeMs({ delete_older_than: "whenever" })).toBe(DEFAULT_SWEEP_AGE_MS);
    expect(sweepAgeMs({})).toBe(DEFAULT_SWEEP_AGE_MS);
  });
});
