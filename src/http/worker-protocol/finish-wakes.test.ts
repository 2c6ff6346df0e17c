import { describe, expect, it } from "vitest";
import { finishWakes } from "./claim-writes.js";

describe("finishWakes", () => {
  const top = { parentId: null, concurrency: null };
  it("a top-level run without a concurrency limit that ends wakes no claim", () => {
    expect(finishWakes(top, { status: "succeeded", result: "1" })).toBe(false);
    expect(finishWakes(top, { status: "failed", error: { message: "x" } as never })).toBe(false);
    expect(finishWakes(top, { status: "cancelled", reason: "r" } as never)).toBe(false);
  });
  it("a retry, a child (its parent) or a run under a concurrency limit wakes them", () => {
    expect(finishWakes(top, { status: "retry", error: { message: "x" } as never, delayMs: 10 })).toBe(true);
    expect(finishWakes({ parentId: "p", concurrency: null }, { status: "succeeded", result: "1" })).toBe(true);
    expect(
      finishWakes(
        { parentId: null, concurrency: { key: "k", limit: 1, windowMs: null } },
        { status: "succeeded", result: "1" },
      ),
    ).toBe(true);
  });
});
