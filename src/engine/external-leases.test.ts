import { describe, expect, it } from "vitest";
import { ExternalLeases, stillHeld } from "./external-leases.js";

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

  it("quiet lists claims not heard from for longer than given; record and touch renew them", () => {
    const l = new ExternalLeases();
    l.record("py:1", [{ runId: "a", token: 1 }], 1_000);
    l.record("py:2", [{ runId: "b", token: 2 }], 1_000);
    expect(l.quiet(61_000, 60_000)).toEqual([]);
    l.touch([{ runId: "b", token: 2 }], 30_000);
    // A stale token's heartbeat renews nothing.
    l.touch([{ runId: "a", token: 0 }], 30_000);
    expect(l.quiet(61_001, 60_000)).toEqual([{ runId: "a", token: 1, workerId: "py:1" }]);
  });

  it("stillHeld: running and leased to the claim's worker, nothing else", () => {
    expect(stillHeld({ workerId: "w" }, { status: "running", leaseOwner: "w" })).toBe(true);
    expect(stillHeld({ workerId: "w" }, { status: "running", leaseOwner: "other" })).toBe(false);
    expect(stillHeld({ workerId: "w" }, { status: "pending", leaseOwner: null })).toBe(false);
    expect(stillHeld({ workerId: "w" }, { status: "succeeded", leaseOwner: null })).toBe(false);
    expect(stillHeld({ workerId: "w" }, undefined)).toBe(false);
  });
});
