/**
 * The error objects the stores write on a run that did not fail by its own code: a cancellation
 * and an expired lease. Built here once for both stores; readers take the cancel reason from
 * `data.reason` instead of parsing the message.
 */
import type { SerializedError } from "../core/serde.js";

/** The reason written on the descendants of a cancelled run. */
export const PARENT_CANCELLED = "its parent run was cancelled";

/** The stored error of a cancelled run (`CANCELLED`), with the reason kept as data. */
export function cancelledError(reason: string | null | undefined): SerializedError {
  return {
    name: "Cancelled",
    code: "CANCELLED",
    message: reason ? `cancelled: ${reason}` : "cancelled",
    data: { reason: reason || null },
  };
}

/** The stored error of an attempt whose lease expired (`LEASE_EXPIRED`). */
export function leaseExpiredError(attempt: number): SerializedError {
  return {
    name: "LeaseExpiredError",
    code: "LEASE_EXPIRED",
    message: `attempt ${attempt} stopped heartbeating (its worker died or stalled) and its lease expired`,
  };
}

/**
 * The reason a cancelled run's stored error carries, or `null`. Rows written before the reason
 * was kept as data fall back to the message after `cancelled: `.
 */
export function cancelReason(error: SerializedError | null | undefined): string | null {
  if (!error) return null;
  const reason = error.data?.reason;
  if (typeof reason === "string") return reason || null;
  if (error.data && "reason" in error.data) return null;
  return error.message.replace(/^cancelled:?\s*/, "") || null;
}
