import { describe, expect, it } from "vitest";
import { newRunId, validateRunId, validateWorkflowName } from "./ids.js";

describe("run ids", () => {
  it("generates distinct, time-ordered ids", () => {
    const ids = Array.from({ length: 100 }, () => newRunId());
    expect(new Set(ids).size).toBe(100);
    expect([...ids].sort()).toEqual(ids);
  });
  it("generates UUIDv7s, distinct and ordered across refills of the random pool", () => {
    const ids = Array.from({ length: 1_000 }, () => newRunId());
    expect(new Set(ids).size).toBe(1_000);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Within one millisecond the random tails still differ (the pool is not reused).
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(1_000);
  });
  it("accepts 1 to 255 bytes and rejects empty, long and NUL ids", () => {
    expect(validateRunId("fulfill:ord_123")).toBe("fulfill:ord_123");
    expect(validateRunId("x".repeat(255))).toHaveLength(255);
    expect(() => validateRunId("")).toThrow(/1–255 bytes, got 0/);
    expect(() => validateRunId("x".repeat(256))).toThrow(/got 256/);
    expect(() => validateRunId("é".repeat(128))).toThrow(/got 256/);
    expect(() => validateRunId("a\u0000b")).toThrow(/NUL/);
    expect(() => validateRunId(42)).toThrow(/must be a string/);
  });
  it("validates workflow names", () => {
    expect(validateWorkflowName("fulfill-order")).toBe("fulfill-order");
    expect(validateWorkflowName("f/data/etl")).toBe("f/data/etl");
    expect(() => validateWorkflowName("")).toThrow(/invalid workflow name/);
    expect(() => validateWorkflowName("has space")).toThrow(/invalid workflow name/);
  });
});
