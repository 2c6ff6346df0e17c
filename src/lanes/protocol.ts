/**
 * Messages a lane worker sends its supervisor over the IPC channel of the child process.
 * The supervisor needs two facts it cannot read from the output reliably: the worker is
 * up, and it claimed its first run (from then on an error exit is not a startup crash).
 */

/** One message from a lane worker; `metrics` carries its in-process metrics (see `lane-metrics.ts`). */
export type LaneMessage =
  | { sluiceLane: "ready" }
  /** `cpuMs`: the worker's CPU time (user + system) from its start to its first claim. */
  | { sluiceLane: "claimed"; cpuMs?: number }
  | { sluiceLane: "metrics"; metrics: unknown[] };

/** True when `value` is a {@link LaneMessage}. */
export function isLaneMessage(value: unknown): value is LaneMessage {
  if (!value || typeof value !== "object") return false;
  const kind = (value as { sluiceLane?: unknown }).sluiceLane;
  if (kind === "metrics") return Array.isArray((value as { metrics?: unknown }).metrics);
  return kind === "ready" || kind === "claimed";
}

/** Environment variable set in a lane worker: its group. User code may read it. */
export const LANE_ENV = "SLUICE_LANE";

/** How often a lane worker sends its metrics to its server (ms); here, not in `lane-metrics.ts`, which loads prom-client. */
export const LANE_METRICS_INTERVAL_MS = 2_000;
