import { describe, expect, it } from "vitest";
import { ExternalLeases } from "./external-leases.js";

describe("ExternalLeases", () => {
  it("take returns only that worker's claims still held, and forgets them", () => {
    const l = new ExternalLeases();
    expect(
      l.record("py:1", [
        { runId: "a", token: 1 },
        { runId: "b", token: 4 },
      ]),
    ).toBe(true);
    l.record("go:1", [{ runId: "c", token: 2 }]);
    l.forget({ runId: "b", token: 4 });
    expect(l.take("py:1")).toEqual([{ runId: "a", token: 1 }]);
    expect(l.take("py:1")).toEqual([]);
    expect(l.size).toBe(1);
  });

  it("forget keeps a newer claim of the same run (a stale token's end changes nothing)", () => {
    const l = new ExternalLeases();
    l.record("py:1", [{ runId: "a", token: 1 }]);
    l.record("py:2", [{ runId: "a", token: 2 }]);
    l.forget({ runId: "a", token: 1 });
    expect(l.take("py:2")).toEqual([{ runId: "a", token: 2 }]);
  });

  it("a claim recorded for a worker already released says so (the caller releases it too)", () => {
    const l = new ExternalLeases();
    l.take("py:1");
    expect(l.record("py:1", [{ runId: "late", token: 3 }])).toBe(false);
    expect(l.take("py:1")).toEqual([{ runId: "late", token: 3 }]);
  });
});
