import { describe, expect, it } from "vitest";
import { cancelledError, cancelReason, leaseExpiredError, PARENT_CANCELLED } from "./run-errors.js";

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
});
