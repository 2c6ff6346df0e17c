import { describe, expect, it } from "vitest";
import {
  cancelledError,
  cancelReason,
  leaseExpiredError,
  PARENT_CANCELLED,
  reclaimError,
  releaseLeaseMs,
  releaseOf,
} from "./run-errors.js";

describe("run errors", () => {
  it("builds the cancelled error with its reason as data, and reads it back without the message", () => {
    const e = cancelledError("operator: wrong payload");
    expect(e).toEqual({
      name: "Cancelled",
      code: "CANCELLED",
      message: "cancelled: operator: wrong payload",
      data: { reason: "operator: wrong payload" },
    });
    expect(cancelReason(e)).toBe("operator: wrong payload");
    expect(cancelReason({ ...e, message: "cancelled: something else" })).toBe("operator: wrong payload");
    expect(cancelReason(cancelledError(PARENT_CANCELLED))).toBe(PARENT_CANCELLED);
  });

  it("has no reason for a bare cancel, an empty reason or no error", () => {
    expect(cancelledError(null).message).toBe("cancelled");
    expect(cancelReason(cancelledError(null))).toBeNull();
    expect(cancelReason(cancelledError(""))).toBeNull();
    expect(cancelReason(JSON.parse(JSON.stringify(cancelledError(undefined))))).toBeNull();
    expect(cancelReason(null)).toBeNull();
  });

  it("reads rows stored before the reason was data from their message", () => {
    expect(cancelReason({ name: "Cancelled", code: "CANCELLED", message: "cancelled: by hand" })).toBe("by hand");
    expect(cancelReason({ name: "Cancelled", code: "CANCELLED", message: "cancelled" })).toBeNull();
  });

  it("builds the lease-expired error", () => {
    expect(leaseExpiredError(2)).toMatchObject({ name: "LeaseExpiredError", code: "LEASE_EXPIRED" });
    expect(leaseExpiredError(2).message).toContain("attempt 2 stopped heartbeating");
  });

  it("a reclaimed lease whose stored length is a release mark gets the released error, with its reason as data", () => {
    const exited = reclaimError({ attempt: 1, maxAttempts: 3 }, releaseLeaseMs("worker-exited"));
    expect(exited).toEqual({
      name: "LeaseReleasedError",
      code: "LEASE_RELEASED",
      message: "attempt 1 was ended when its worker process exited (its claim was released, not left to expire)",
      data: { reason: "worker-exited" },
    });
    expect(releaseOf(exited)).toBe("worker-exited");
    const drained = reclaimError({ attempt: 2, maxAttempts: 3 }, releaseLeaseMs("drain-timeout"));
    expect(drained).toMatchObject({ code: "LEASE_RELEASED", data: { reason: "drain-timeout" } });
    expect(drained.message).toBe(
      "attempt 2 was ended when its worker stopped with it still running after its drain timeout (its claim was released, not left to expire)",
    );
    expect(releaseOf(drained)).toBe("drain-timeout");
    // Round trip through the stored JSON.
    expect(releaseOf(JSON.parse(JSON.stringify(drained)))).toBe("drain-timeout");
  });

  it("any real lease length (or none, a row from before lease_ms) gets the expired error", () => {
    for (const leaseMs of [30_000, 1, 0, null, undefined, -3]) {
      const e = reclaimError({ attempt: 2, maxAttempts: 3 }, leaseMs);
      expect(e).toEqual(leaseExpiredError(2));
      expect(releaseOf(e)).toBeNull();
    }
  });

  it("the two release marks differ, and are negative (a lease that has ended)", () => {
    expect(releaseLeaseMs("worker-exited")).toBeLessThan(0);
    expect(releaseLeaseMs("drain-timeout")).toBeLessThan(0);
    expect(releaseLeaseMs("worker-exited")).not.toBe(releaseLeaseMs("drain-timeout"));
  });

  it("says when the attempt was the run's last, for either kind", () => {
    expect(reclaimError({ attempt: 2, maxAttempts: 2 }, 30_000).message).toBe(
      "attempt 2 stopped heartbeating (its worker died or stalled) and its lease expired; that was the last of 2 attempts",
    );
    const released = reclaimError({ attempt: 1, maxAttempts: 1 }, releaseLeaseMs("worker-exited"));
    expect(released.message).toMatch(
      /^attempt 1 was ended when its worker process exited .*; that was the last of 1 attempts$/,
    );
    expect(releaseOf(released)).toBe("worker-exited");
  });

  it("reads no release from other errors", () => {
    expect(releaseOf(null)).toBeNull();
    expect(releaseOf(cancelledError("x"))).toBeNull();
    expect(
      releaseOf({ name: "LeaseReleasedError", code: "LEASE_RELEASED", message: "m", data: { reason: "?" } }),
    ).toBeNull();
  });
});
