/**
 * Messages a lane worker sends its supervisor over the IPC channel of the child process.
 * The supervisor needs two facts it cannot read from the output reliably: the worker is
 * up, and it claimed its first run (from then on an error exit is not a startup crash).
 * A worker command's lane (`sluice.json` `workers`) has no channel: its spawner makes the same
 * messages from what the process asks the server's worker protocol (its claims), plus
 * `serves`: the workflows it claims, which is how its lane learns when it has work.
 */

/** One message from a lane worker; `metrics` carries its in-process metrics (see `lane-metrics.ts`). */
export type LaneMessage =
  | { sluiceLane: "ready" }
  /** `cpuMs`: the worker's CPU time (user + system) from its start to its first claim. */
  | { sluiceLane: "claimed"; cpuMs?: number }
  | { sluiceLane: "metrics"; metrics: unknown[] }
  /** A worker command's process asked for runs of `workflows` (in `groups`; null: any group). */
  | { sluiceLane: "serves"; workflows: string[]; groups: string[] | null };

/** True when `value` is a {@link LaneMessage}. */
export function isLaneMessage(value: unknown): value is LaneMessage {
  if (!value || typeof value !== "object") return false;
  const kind = (value as { sluiceLane?: unknown }).sluiceLane;
  if (kind === "metrics") return Array.isArray((value as { metrics?: unknown }).metrics);
  if (kind === "serves") {
    const { workflows, groups } = value as { workflows?: unknown; groups?: unknown };
    return isNames(workflows) && (groups === null || isNames(groups));
  }
  return kind === "ready" || kind === "claimed";
}

function isNames(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/** Environment variable set in a lane worker: its group. User code may read it. */
export const LANE_ENV = "SLUICE_LANE";

/** How often a lane worker sends its metrics to its server (ms); here, not in `lane-metrics.ts`, which loads prom-client. */
export const LANE_METRICS_INTERVAL_MS = 2_000;
