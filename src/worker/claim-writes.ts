/**
 * The writes of one claim: submitted to the group commit, and after a storage failure (locked,
 * disk full, I/O error) reported on the operator's stderr and submitted again with backoff while
 * the lease is ours. A fencing refusal is the store's answer, not a failure.
 */
import { backoffDelay, STORAGE_BACKOFF } from "../core/backoff.js";
import { formatMillis } from "../core/duration.js";
import { terminalSafe } from "../core/terminal-text.js";
import type { GroupCommitter } from "../engine/committer.js";
import { toStorageError } from "../store/storage-error.js";
import type { Command, CommandResult, RunRecord } from "../store/types.js";
import { originalConsole } from "./console-capture.js";
import { describeWrite } from "./write-description.js";

/** What {@link ClaimWrites} needs of its execution. */
export interface ClaimWritesHost {
  readonly run: RunRecord;
  readonly deps: {
    committer: GroupCommitter;
    random: () => number;
    /** Where a failing write is reported; default stderr. */
    warn?: (message: string) => void;
  };
  /** Whether a heartbeat found the lease gone (a retry then stops, answered as fenced). */
  readonly leaseGone: boolean;
}

/** Submits one claim's writes, retrying storage failures (see the module comment). */
export class ClaimWrites {
  /** Writes being retried after a storage failure: heartbeats keep the lease alive meanwhile. */
  private retries = 0;

  constructor(private readonly host: ClaimWritesHost) {}

  /** Whether a write is being retried (the lease must be kept while it waits). */
  get retrying(): boolean {
    return this.retries > 0;
  }

  /**
   * Submits `command`; a storage failure is reported and retried while the lease is ours.
   * @throws StorageError when the failure is not one a retry can pass
   */
  submit(command: Command): Promise<CommandResult> {
    // The usual case is one submission, answered: no async frame, no retry loop (two promises fewer).
    return this.host.deps.committer.submit(command).catch((err: unknown) => this.retry(command, err));
  }

  /**
   * `command` after a submission of it failed with `first`: reports, waits and submits again.
   * @throws StorageError when the failure is not one a retry can pass
   */
  async retry(command: Command, first: unknown): Promise<CommandResult> {
    const { run, deps } = this.host;
    let err = first;
    this.retries++;
    try {
      for (let failures = 1; ; failures++) {
        const failure = toStorageError(err);
        const what = describeWrite(command);
        // The operator's stderr, not the run's log: console.* inside a run is captured, and this
        // write is the one failing, so a captured line would be lost with it (and never seen).
        const warn = deps.warn ?? ((m: string) => originalConsole.error(m));
        const who = terminalSafe(`run ${run.id} (${run.workflow})`);
        if (!failure.transient) {
          warn(`sluice worker: ${who}: could not ${what}: ${failure.message}`);
          throw failure;
        }
        if (this.host.leaseGone) return { ok: false, fenced: true };
        const delay = backoffDelay(STORAGE_BACKOFF, failures, deps.random);
        warn(`sluice worker: ${who}: could not ${what}: ${failure.message}; retrying in ${formatMillis(delay)}`);
        await new Promise((r) => setTimeout(r, delay));
        if (this.host.leaseGone) return { ok: false, fenced: true };
        try {
          return await deps.committer.submit(command);
        } catch (next) {
          err = next;
        }
      }
    } finally {
      this.retries--;
    }
  }
}
