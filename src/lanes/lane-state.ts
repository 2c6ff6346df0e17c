/**
 * The lifecycle of one worker lane, as a state machine. A lane is the worker process of
 * one worker group that a server starts on demand (scale to zero):
 *
 * ```
 *   idle ──start──▶ starting ──first claim──▶ running ──exit──▶ idle
 *    ▲                │  │                       │
 *    │   exit 0, no claim  └─exit ≠ 0, no claim─▶ crashed ──recover──▶ idle
 *    └────────────────┘
 *   starting | running ──retire (new code)──▶ idle    (the old process drains on its own)
 *   starting | running ──stop──▶ draining ──exit──▶ stopped;  idle | crashed ──stop──▶ stopped
 * ```
 *
 * Each transition names the modes it may come from and throws {@link LaneModeError}
 * otherwise, so a wrong sequence fails loudly instead of winding a state back.
 */
import { SluiceError } from "../sdk/errors.js";

/** Where a lane is (see the diagram above). */
export type LaneMode = "idle" | "starting" | "running" | "draining" | "crashed" | "stopped";

/** A transition was asked from a mode that does not allow it (a bug in the supervisor). */
export class LaneModeError extends SluiceError<"LANE_MODE"> {
  constructor(lane: string, transition: string, from: LaneMode, allowed: readonly LaneMode[]) {
    super(
      "LANE_MODE",
      `lane ${JSON.stringify(lane)}: cannot ${transition} while ${from} (only from ${allowed.join(" or ")})`,
    );
  }
}

/** The mode of one lane and its guarded transitions. */
export class LaneState {
  private current: LaneMode = "idle";

  constructor(readonly lane: string) {}

  /** The current mode. */
  get mode(): LaneMode {
    return this.current;
  }

  /** A worker process is being started for runnable work. */
  setStarting(): void {
    this.move("start", ["idle"], "starting");
  }

  /** The worker claimed its first run: it is healthy. */
  setRunning(): void {
    this.move("mark running", ["starting"], "running");
  }

  /** The worker exited on its own: idle (nothing left to do) or after a crash with work done. */
  setExited(): void {
    this.move("mark exited", ["starting", "running"], "idle");
  }

  /** The worker exited with an error before claiming anything, or could not be started at all: stop respawning. */
  setCrashed(): void {
    this.move("mark crashed", ["starting"], "crashed");
  }

  /** A crashed lane may try again (new code, a probe after its backoff, or a claim elsewhere). */
  setRecovered(): void {
    this.move("recover", ["crashed"], "idle");
  }

  /** New code: the current worker drains in the background; new work gets a fresh one. */
  setRetired(): void {
    this.move("retire", ["starting", "running"], "idle");
  }

  /** The supervisor is stopping: the worker was asked to drain. */
  setDraining(): void {
    this.move("drain", ["starting", "running"], "draining");
  }

  /** Stopped for good (the drained worker exited, or there was none). */
  setStopped(): void {
    this.move("stop", ["draining", "idle", "crashed"], "stopped");
  }

  private move(transition: string, from: readonly LaneMode[], to: LaneMode): void {
    if (!from.includes(this.current)) throw new LaneModeError(this.lane, transition, this.current, from);
    this.current = to;
  }
}
