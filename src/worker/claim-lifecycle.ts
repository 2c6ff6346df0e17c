/**
 * The lifecycle of one claim, as a small state machine: every transition names the
 * states it may come from, and anything else is refused with a named error, so a
 * claim cannot be written twice, end twice, or be wound back to `running`.
 *
 *   running ──settle──▶ settling ──finish──▶ finishing ──written──▶ completed
 *      │                                        │
 *      ├──finish (a task's timeout)─────────────┘ (finishing ──refused──▶ fenced)
 *      └──suspend──▶ suspending ──parked──▶ suspended
 *                               (suspending ──refused──▶ fenced)
 *
 * `fence`: the lease was lost (a heartbeat found it gone, a checkpoint was refused)
 * while the handler runs, settles or parks; once the outcome is being written, only
 * that write's own refusal (`refused`) fences the claim. `abandon`: the database
 * failed in a way a retry cannot pass, which ends any claim that has not ended.
 */
import { SluiceError } from "../core/errors.js";

/** Where a claim is in its life. */
export type ClaimState =
  /** The handler runs; durable calls may be made. */
  | "running"
  /** The handler returned or threw; in-flight inline work is awaited before the outcome is written. */
  | "settling"
  /** Pending calls are being written (`suspend`). */
  | "suspending"
  /** The outcome is being written (`complete`). */
  | "finishing"
  /** Parked: the suspension was written. */
  | "suspended"
  /** The outcome was written. */
  | "completed"
  /** The lease was lost: nothing more is written. */
  | "fenced"
  /** The database failed in a way a retry cannot pass: nothing more is written, the lease expires. */
  | "abandoned";

/** What can happen to a claim. */
export type ClaimEvent = "settle" | "suspend" | "parked" | "finish" | "written" | "refused" | "fence" | "abandon";

const LIVE: readonly ClaimState[] = ["running", "settling", "suspending", "finishing"];

/** Each event: the states it may come from and the state it leads to. */
const TRANSITIONS: Readonly<Record<ClaimEvent, { from: readonly ClaimState[]; to: ClaimState }>> = {
  settle: { from: ["running"], to: "settling" },
  suspend: { from: ["running"], to: "suspending" },
  parked: { from: ["suspending"], to: "suspended" },
  // From `running`: a task's timeout ends it while the handler still runs.
  finish: { from: ["running", "settling"], to: "finishing" },
  written: { from: ["finishing"], to: "completed" },
  refused: { from: ["suspending", "finishing"], to: "fenced" },
  fence: { from: ["running", "settling", "suspending"], to: "fenced" },
  abandon: { from: LIVE, to: "abandoned" },
};

/** A transition was asked for from a state it may not come from (a bug in the worker, never user input). */
export class IllegalClaimTransitionError extends SluiceError<"ILLEGAL_CLAIM_TRANSITION"> {
  constructor(
    readonly event: ClaimEvent,
    readonly from: ClaimState,
  ) {
    super(
      "ILLEGAL_CLAIM_TRANSITION",
      `a claim cannot ${event} while ${from} (allowed from: ${TRANSITIONS[event].from.join(", ")}); this is a bug in the Sluice worker, please report it`,
    );
  }
}

/** One claim's state; pure, no I/O. */
export class ClaimLifecycle {
  private current: ClaimState = "running";

  /** The current state. */
  get state(): ClaimState {
    return this.current;
  }

  /** True until the claim has ended (suspended, completed, fenced or abandoned). */
  get live(): boolean {
    return LIVE.includes(this.current);
  }

  /** Whether `event` may happen now. */
  can(event: ClaimEvent): boolean {
    return TRANSITIONS[event].from.includes(this.current);
  }

  /**
   * Applies `event`; returns the new state.
   * @throws IllegalClaimTransitionError when the current state is not one `event` may come from
   */
  fire(event: ClaimEvent): ClaimState {
    const t = TRANSITIONS[event];
    if (!t.from.includes(this.current)) throw new IllegalClaimTransitionError(event, this.current);
    this.current = t.to;
    return this.current;
  }
}
