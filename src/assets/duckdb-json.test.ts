import { describe, expect, it } from "vitest";
import { decimalNumber, isoUtc } from "./duckdb-json.js";

describe("DuckDB timestamps as JSON", () => {
  it("prints ISO 8601 UTC with the unit's fraction digits, before the epoch too", () => {
    expect(isoUtc(1_767_609_000_123_456n, 1_000_000n, 6)).toBe("2026-01-05T10:30:00.123456Z");
    expect(isoUtc(-500_000n, 1_000_000n, 6)).toBe("1969-12-31T23:59:59.500000Z");
    expect(isoUtc(1_767_609_000n, 1n, 6)).toBe("2026-01-05T10:30:00.000000Z");
    expect(isoUtc(1_767_609_000_123_456_789n, 1_000_000_000n, 9)).toBe("2026-01-05T10:30:00.123456789Z");
  });
});

describe("DuckDB decimals handed to code", () => {
  it("are numbers up to 15 significant digits, exact strings beyond", () => {
    expect(decimalNumber("10.50")).toBe(10.5);
    expect(decimalNumber("-0.000123")).toBe(-0.000123);
    expect(decimalNumber("12300")).toBe(12300);
    expect(decimalNumber("123456789012345.00")).toBe(123456789012345);
    expect(decimalNumber("1234567890123456.00")).toBe("1234567890123456.00");
    expect(decimalNumber("0.1234567890123456")).toBe("0.1234567890123456");
  });
});
