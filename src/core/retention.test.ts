import { describe, expect, it } from "vitest";
import { DEFAULT_RETENTION_MS, retentionMillis } from "./retention.js";

describe("retention", () => {
  it("defaults to 184 days, accepts durations and forever", () => {
    expect(retentionMillis(undefined)).toBe(DEFAULT_RETENTION_MS);
    expect(DEFAULT_RETENTION_MS).toBe(184 * 24 * 3600 * 1000);
    expect(retentionMillis("1d")).toBe(86_400_000);
    expect(retentionMillis("forever")).toBeNull();
  });
  it("rejects nonsense and zero", () => {
    expect(() => retentionMillis("never")).toThrow(/invalid retention "never".*"forever"/);
    expect(() => retentionMillis(0)).toThrow(/invalid retention/);
  });
});
