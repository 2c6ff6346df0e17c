/**
 * The worker's side of a lane: what `sluice worker` does when a lane supervisor started
 * it (an IPC channel is open and `SLUICE_LANE` is set). It reports being ready and its
 * first claim, and it notices when the supervisor is gone (even killed with SIGKILL: the
 * channel closes), so an orphaned lane worker drains and exits instead of living on.
 */
import type { EngineEvents } from "../engine/events.js";
import { LANE_ENV, type LaneMessage } from "./protocol.js";

/** A link to the supervisor; `parentGone` resolves when the supervisor's process is gone. */
export interface SupervisorLink {
  parentGone: Promise<void>;
  /** Tells the supervisor the worker is up. */
  ready(): void;
  /** Sends this process's metrics (prom-client JSON); resolves once handed to the channel (or it is closed). */
  metrics(metrics: unknown[]): Promise<void>;
  /** Stops listening and closes the channel (so it does not keep the process alive). */
  close(): void;
}

/**
 * Links to the supervisor when this process was started as a lane: `SLUICE_LANE` is set
 * and an IPC channel is open (else null: another parent's channel, such as a test
 * runner's, is left alone).
 */
export function linkToSupervisor(
  events: EngineEvents,
  env: Record<string, string | undefined>,
  proc: NodeJS.Process = process,
): SupervisorLink | null {
  if (!env[LANE_ENV] || typeof proc.send !== "function" || !proc.connected) return null;
  const send = (m: LaneMessage) => {
    if (proc.connected) proc.send!(m, undefined, undefined, () => {});
  };
  let claimed = false;
  const onClaim = () => {
    if (claimed) return;
    claimed = true;
    const cpu = proc.cpuUsage();
    send({ sluiceLane: "claimed", cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
  };
  events.on("started", onClaim);
  events.on("settled", onClaim);
  let gone!: () => void;
  const parentGone = new Promise<void>((resolve) => (gone = resolve));
  const onDisconnect = () => gone();
  proc.on("disconnect", onDisconnect);
  return {
    parentGone,
    ready: () => send({ sluiceLane: "ready" }),
    metrics: (metrics) =>
      new Promise<void>((resolve) => {
        if (!proc.connected) return resolve();
        proc.send!({ sluiceLane: "metrics", metrics } satisfies LaneMessage, undefined, undefined, () => resolve());
      }),
    close: () => {
      events.off("started", onClaim);
      events.off("settled", onClaim);
      proc.off("disconnect", onDisconnect);
      if (proc.connected) proc.disconnect();
    },
  };
}
