import { describe, expect, it } from "vitest";
import { backoffDelay, RUN_BACKOFF } from "./backoff.js";

describe("backoffDelay", () => {
  it("doubles from the base and stays inside ±20 % jitter", () => {
    expect(backoffDelay(RUN_BACKOFF, 1, () => 0.5)).toBe(1_000);
    expect(backoffDelay(RUN_BACKOFF, 2, () => 0.5)).toBe(2_000);
    expect(backoffDelay(RUN_BACKOFF, 3, () => 0.5)).toBe(4_000);
    expect(backoffDelay(RUN_BACKOFF, 1, () => 0)).toBe(800);
    expect(backoffDelay(RUN_BACKOFF, 1, () => 0.999999)).toBe(1_200);
  });
  it("is capped at one hour even with jitter", () => {
    for (const r of [0, 0.5, 0.99]) expect(backoffDelay(RUN_BACKOFF, 40, () => r)).toBeLessThanOrEqual(3_600_000);
    expect(backoffDelay(RUN_BACKOFF, 40, () => 0.99)).toBe(3_600_000);
    expect(backoffDelay(RUN_BACKOFF, 40, () => 0)).toBe(2_880_000);
  });
  it("spreads real random delays across the jitter band", () => {
    const samples = Array.from({ length: 500 }, () => backoffDelay({ base: 500, max: 10_000 }, 2));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(800);
    expect(Math.max(...samples)).toBeLessThanOrEqual(1_200);
    expect(new Set(samples).size).toBeGreaterThan(50);
  });
});
