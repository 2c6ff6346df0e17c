/**
 * The error objects the stores write on a run that did not fail by its own code: a cancellation,
 * an expired lease and a released one. Built here once for both stores; readers take the cancel
 * reason and the release reason from `data.reason` instead of parsing the message.
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
 * Why a claim was ended before its lease ran out, its holder known gone: `worker-exited`, the
 * worker process holding it exited (a supervised Python worker, a `sluice.json` worker command:
 * `engine/external-leases.ts`); `drain-timeout`, its worker stopped with it still running after
 * its drain timeout (`sluice worker`, `sluice dev`, `engine.stop`: `Worker.stop`).
 */
export type LeaseRelease = "worker-exited" | "drain-timeout";

/**
 * The lease length a release writes in place of a real one (`runs.lease_ms`, through the fenced
 * `heartbeat` verb): negative, so the lease has ended, and naming why. Every claim and renewal
 * writes a real length over it, so it marks only the claim it ended. Real lease lengths are never
 * negative (`INVALID_DURATION`; the worker protocol takes 1 s to 10 min).
 */
const RELEASE_MARKS: Readonly<Record<LeaseRelease, number>> = { "worker-exited": -1, "drain-timeout": -2 };

/** The `leaseMs` of the heartbeat that releases a claim for `why` (see {@link RELEASE_MARKS}). */
export function releaseLeaseMs(why: LeaseRelease): number {
  return RELEASE_MARKS[why];
}

/** The release a stored lease length marks, or null for a real lease (one that can only expire). */
function releaseOfLeaseMs(leaseMs: number | null | undefined): LeaseRelease | null {
  for (const [why, mark] of Object.entries(RELEASE_MARKS)) if (leaseMs === mark) return why as LeaseRelease;
  return null;
}

const RELEASE_WORDING: Readonly<Record<LeaseRelease, string>> = {
  "worker-exited": "its worker process exited",
  "drain-timeout": "its worker stopped with it still running after its drain timeout",
};

/**
 * The stored error of an attempt released before its lease ran out (`LEASE_RELEASED`), the
 * reason kept as `data.reason`. The run goes on as after an expiry: another attempt after its
 * backoff, or `failed` on its last.
 */
function leaseReleasedError(attempt: number, why: LeaseRelease): SerializedError {
  return {
    name: "LeaseReleasedError",
    code: "LEASE_RELEASED",
    message: `attempt ${attempt} was ended when ${RELEASE_WORDING[why]} (its claim was released, not left to expire)`,
    data: { reason: why },
  };
}

/**
 * The error `Store.reclaimExpired` writes on a run whose lease it ends: released when the
 * lease's stored length is a release mark ({@link releaseLeaseMs}), else expired; on the run's
 * last attempt it says so (the run then ends `failed`). The one rule both stores apply.
 */
export function reclaimError(
  run: { attempt: number; maxAttempts: number },
  leaseMs: number | null | undefined,
): SerializedError {
  const why = releaseOfLeaseMs(leaseMs);
  const error = why ? leaseReleasedError(run.attempt, why) : leaseExpiredError(run.attempt);
  if (run.attempt >= run.maxAttempts) error.message += `; that was the last of ${run.maxAttempts} attempts`;
  return error;
}

/** Why a reclaimed run's stored error says its claim was released, or null (expired, or another error). */
export function releaseOf(error: SerializedError | null | undefined): LeaseRelease | null {
  if (error?.code !== "LEASE_RELEASED") return null;
  const why = error.data?.reason;
  return typeof why === "string" && why in RELEASE_MARKS ? (why as LeaseRelease) : null;
}

/** How an operator's log line says why a claim was released ("its worker process exited" …). */
export function describeLeaseRelease(why: LeaseRelease): string {
  return RELEASE_WORDING[why];
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
