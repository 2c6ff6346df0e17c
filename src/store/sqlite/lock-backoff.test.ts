import { describe, expect, it } from "vitest";
import { LOCK_RETRY_MAX_MS, lockRetryDelayMs } from "./lock-backoff.js";

describe("lockRetryDelayMs", () => {
  it("doubles from 1 ms up to the cap", () => {
    const mid = () => 0.5; // factor 1
    expect([0, 1, 2, 3, 10, 1_000].map((n) => lockRetryDelayMs(n, mid))).toEqual([1, 2, 4, 4, 4, 4]);
  });

  it("spreads each wait by ±25 %", () => {
    expect(lockRetryDelayMs(0, () => 0)).toBe(0.75);
    expect(lockRetryDelayMs(5, () => 0)).toBe(LOCK_RETRY_MAX_MS * 0.75);
    expect(lockRetryDelayMs(5, () => 0.999_999)).toBeCloseTo(LOCK_RETRY_MAX_MS * 1.25, 4);
  });
});
