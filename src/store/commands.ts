/**
 * The writes of the group commit: {@link Command}s applied by `Store.commit`, many runs' in
 * one transaction, each checked against its lease and answered on its own
 * ({@link CommandResult}), with what they carry (checkpoints, children, a claim's outcome).
 * Re-exported by `store/types.ts`.
 */
import type { SerializedError } from "../core/serde.js";
import type {
  ClaimedRun,
  ClaimRequest,
  EnqueueRequest,
  EnqueueResult,
  Lease,
  LogLine,
  RunRecord,
  StepKind,
} from "./types.js";

/** A checkpoint to write (insert or replace by key). */
export interface StepWrite {
  key: string;
  kind: StepKind;
  target: string | null;
  status: "done" | "error" | "pending";
  value?: string | null;
  error?: SerializedError | null;
  event?: string | null;
  /** For sleeps and wait deadlines: wake this long after the store's now. Absent on a rewrite: the stored wake time is kept. */
  wakeAfterMs?: number | null;
  attempts?: number;
  position: number;
  childId?: string | null;
  /**
   * When the call began, on the store's clock (a step's body start, a sleep's start).
   * Absent: the time of the write. A rewrite keeps the first recorded start.
   */
  startedAt?: number;
}

/** A child run created by a suspending parent; its completion resolves the parent's step `parentKey`. */
export interface ChildSpec extends EnqueueRequest {
  parentKey: string;
  /**
   * With `cacheKey`: if a run with that key succeeded within this many ms, the parent's
   * step resolves to its result at once and no child is created.
   */
  cacheTtlMs?: number | null;
}

/** How a claim ended. */
export type RunOutcome =
  | { status: "succeeded"; result: string | null }
  | { status: "failed"; error: SerializedError }
  | { status: "cancelled"; reason: string | null }
  /** Back to pending for another attempt after `delayMs`; `error` is kept for display. */
  | { status: "retry"; error: SerializedError; delayMs: number };

/**
 * A write applied by {@link Store.commit}. Many commands, from many runs, share one
 * transaction (group commit); each is checked and answered on its own.
 */
export type Command =
  | { verb: "enqueue"; request: EnqueueRequest }
  /** Persist checkpoints of a running claim. */
  | { verb: "saveSteps"; lease: Lease; steps: StepWrite[] }
  /**
   * Park a running claim: write its pending checkpoints, create its children, and
   * make it `waiting` (holding no slot) until its children are done
   * (`awaitChildren`), `wakeAfterMs` passes, or a signal/approval resolves a wait.
   */
  | {
      verb: "suspend";
      lease: Lease;
      steps: StepWrite[];
      children: ChildSpec[];
      wakeAfterMs: number | null;
      awaitChildren: boolean;
      /**
       * Create the children and write the steps under the fence but keep the claim: the
       * run stays `running` (its outstanding count grows). A park too large for one request
       * is sent as such writes first, then one parking suspend (docs/PROTOCOL.md, "Large fan-outs").
       */
      keepClaim?: boolean;
    }
  | {
      verb: "complete";
      lease: Lease;
      outcome: RunOutcome;
      /**
       * The run as the lease's claim returned it. A store may then answer `finished` from it and
       * what it wrote (only the columns that change under a claim are read back); without it,
       * the run is read back whole.
       */
      claimed?: RunRecord;
    }
  /**
   * Renews each still-current lease to `leaseMs` from now (recording that length); answers the
   * runs whose lease is gone in `lost`. A negative `leaseMs` is a release mark
   * (`releaseLeaseMs`, store/run-errors.ts): the lease ends now, and the next
   * {@link Store.reclaimExpired} writes the run's error as released for that reason.
   */
  | { verb: "heartbeat"; leases: Lease[]; leaseMs: number }
  /** Append captured log lines; lines of a stale claim (see {@link LogLine.token}) are dropped. */
  | { verb: "appendLogs"; lines: LogLine[] }
  /**
   * Lease runnable runs, as {@link Store.claim} does, in the same transaction as the
   * batch's other commands and after all of them: a worker claims the slots that the
   * batch's completions free, and runs the batch enqueued, with one commit.
   */
  | { verb: "claim"; request: ClaimRequest };

/** The answer to one {@link Command}. */
export type CommandResult =
  | {
      ok: true;
      enqueued?: EnqueueResult;
      lost?: string[];
      claimed?: ClaimedRun[];
      /** `complete` with a terminal outcome: the run as it now stands, so waiters need not read it back. */
      finished?: RunRecord;
    }
  /** The lease is stale: the run was reclaimed, cancelled or finished elsewhere. */
  | { ok: false; fenced: true }
  /** The command was refused (e.g. an id conflict); nothing of it was written. */
  | { ok: false; fenced?: false; error: SerializedError };
