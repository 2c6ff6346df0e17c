/**
 * Step checkpoints written ahead: a `ctx.run` whose body has finished hands its checkpoint to the
 * next group commit and returns its value at once, instead of waiting for that commit. What the
 * workflow does next is ordered after the checkpoint:
 *
 * - the run's outcome, when the handler settles before the checkpoint's batch is taken, is added
 *   to that same batch right after it ({@link AheadSaves.attach}): one transaction writes both
 *   (a one-step run costs two commits, its creation and this one, instead of three); once the
 *   batch is taken, the outcome waits for the checkpoint's answer;
 * - anything else durable (the next step body, whose effects may depend on this result, a
 *   suspension, another checkpoint) waits until every checkpoint written ahead is answered
 *   ({@link AheadSaves.settled}).
 *
 * So nothing the run does after a step takes effect unless the step's checkpoint is durable (a
 * crash before it re-runs the step, as before); only the workflow function's own code, which is
 * replayed on every claim anyway, may run on before the commit.
 */
import type { Command, CommandResult, Lease, StepWrite } from "../store/types.js";

/** What {@link AheadSaves} asks of its execution. */
export interface AheadSavesHost {
  readonly lease: Lease;
  /** Queues commands built when their batch is taken (the group committer's `submitLate`). */
  submitLate(build: () => Command[]): Promise<CommandResult[]>;
  /**
   * Submits `command` again after its batch failed with `error` (reporting, backing off);
   * rejects when the failure is not one a retry can pass.
   */
  retry(command: Command, error: unknown): Promise<CommandResult>;
  /** The store answered the checkpoint of `steps` (refused when the lease is stale). */
  saved(steps: readonly StepWrite[], result: CommandResult): void;
  /** The checkpoint could not be written, and no retry can pass the failure. */
  failed(error: unknown): void;
}

interface Attached {
  command: Command;
  resolve: (r: CommandResult) => void;
  reject: (e: unknown) => void;
}

/** The checkpoints one execution has written ahead and not yet seen answered. */
export class AheadSaves {
  /** Checkpoints waiting for the queued entry's batch to be taken. */
  private staged: StepWrite[] = [];
  /** A queued entry will take {@link staged} (and {@link attached}) when its batch is taken. */
  private open = false;
  private attached: Attached | null = null;
  /** Checkpoints written ahead and not answered yet. */
  private unanswered = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly host: AheadSavesHost) {}

  /** Whether a checkpoint written ahead is still unanswered. */
  get pending(): boolean {
    return this.unanswered > 0;
  }

  /** Hands `step` to the next group commit. */
  stage(step: StepWrite): void {
    this.staged.push(step);
    this.unanswered++;
    if (this.open) return;
    this.open = true;
    let save: Command | null = null;
    let outcome: Attached | null = null;
    this.host
      .submitLate(() => {
        save = { verb: "saveSteps", lease: this.host.lease, steps: this.staged };
        outcome = this.attached;
        this.staged = [];
        this.attached = null;
        this.open = false;
        return outcome ? [save, outcome.command] : [save];
      })
      .then(
        (results) => this.answered(save!, results[0]!, outcome, results[1]),
        (error: unknown) => void this.retry(save!, outcome, error),
      );
  }

  /**
   * Adds the run's outcome `command` right after the staged checkpoints, in their batch; null
   * when that batch was taken already (then wait for {@link settled} and submit it on its own).
   */
  attach(command: Command): Promise<CommandResult> | null {
    if (!this.open || this.attached) return null;
    return new Promise((resolve, reject) => (this.attached = { command, resolve, reject }));
  }

  /** Resolves once every checkpoint written ahead is answered (written, refused or given up). */
  settled(): Promise<void> {
    if (this.unanswered === 0) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  private answered(save: Command, result: CommandResult, outcome: Attached | null, outcomeResult?: CommandResult) {
    this.host.saved(stepsOf(save), result);
    outcome?.resolve(outcomeResult!);
    this.done(stepsOf(save).length);
  }

  /** The batch failed: the checkpoint is submitted again first, then the outcome added to it. */
  private async retry(save: Command, outcome: Attached | null, error: unknown): Promise<void> {
    try {
      this.host.saved(stepsOf(save), await this.host.retry(save, error));
    } catch (err) {
      this.host.failed(err);
      outcome?.reject(err);
      return this.done(stepsOf(save).length);
    }
    if (outcome) this.host.retry(outcome.command, error).then(outcome.resolve, outcome.reject);
    this.done(stepsOf(save).length);
  }

  private done(n: number): void {
    this.unanswered -= n;
    if (this.unanswered === 0 && this.waiters.length > 0) for (const w of this.waiters.splice(0)) w();
  }
}

function stepsOf(save: Command): readonly StepWrite[] {
  return (save as Extract<Command, { verb: "saveSteps" }>).steps;
}
