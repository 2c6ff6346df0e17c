import { describe, expect, it } from "vitest";
import { DEFAULT_RETENTION_MS, retentionLabel, retentionMillis } from "./retention.js";

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
  it("labels a retention in its largest whole unit", () => {
    expect(retentionLabel(null)).toBe("forever");
    expect(retentionLabel(DEFAULT_RETENTION_MS)).toBe("184d");
    expect(retentionLabel(retentionMillis("36h"))).toBe("36h");
    expect(retentionLabel(retentionMillis("90s"))).toBe("90s");
    expect(retentionLabel(1_500)).toBe("1500ms");
  });
});
