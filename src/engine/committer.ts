import { backoffDelay, STORAGE_BACKOFF } from "../core/backoff.js";
import { toStorageError } from "../store/storage-error.js";
import type { Command, CommandResult, LogLine, Store } from "../store/types.js";
import type { EngineMetrics } from "./metrics.js";
import { crashArmed, crashAt } from "../worker/crash-points.js";

/** Log lines kept for the next batch while the database refuses writes; older ones are dropped past this. */
const MAX_HELD_LOG_LINES = 10_000;

/**
 * A command that rides along with a batch (see {@link GroupCommitter.setRider}), and
 * where its answer goes: the result, or the error that failed the whole batch, with when
 * the batch was sent (see {@link Sent}).
 */
export interface Ride {
  command: Command;
  settle: (answer: { result: CommandResult } | { error: unknown }, sentAt: number) => void;
}

/**
 * Told, before the answer, when the batch that carried a command was handed to the store
 * (`performance.now()`): a claim's `claimedAt` is the store's clock read at about that moment,
 * so an execution measures elapsed time from here rather than from when the answer arrived.
 */
export type Sent = (sentAt: number) => void;

/** Looks at a batch about to be committed and may add one command to it. */
export type Rider = (batch: readonly Command[]) => Ride | null;

interface Queued {
  command: Command;
  sent: Sent | undefined;
  resolve: (r: CommandResult) => void;
  reject: (e: unknown) => void;
}

/** A {@link GroupCommitter.submitLate} entry: its commands are asked for when its batch is taken. */
interface LateQueued {
  command: null;
  build: () => Command[];
  resolve: (r: CommandResult[]) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: commands submitted by many runs during one event-loop turn are
 * applied by the store in one transaction (one fsync), then each caller gets its own
 * answer. While a commit is in flight (Postgres), new commands gather for the next.
 * Log lines ride along with the next batch.
 *
 * When the store throws (database locked, disk full, I/O error: not a fencing
 * refusal), every command of the batch is rejected with a {@link StorageError};
 * callers decide whether to retry. Log lines are kept for the next batch, and the
 * next commit waits a backoff that grows with consecutive failures.
 */
export class GroupCommitter {
  private queue: Array<Queued | LateQueued> = [];
  /** {@link submitLate} entries in the queue (0: every entry is a plain command, the usual case). */
  private late = 0;
  private logs: LogLine[] = [];
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  /** Consecutive failed commits (0 when the last one succeeded). */
  private failures = 0;
  private rider: Rider | null = null;
  /** Batches committed and commands they held, for benchmarks and tests. */
  readonly stats = { batches: 0, commands: 0 };

  constructor(
    private readonly store: Store,
    private readonly maxBatch = 5_000,
    /** Where each commit is recorded (batch size, duration, fenced writes, lease losses, outcomes); none by default. */
    private readonly metrics: EngineMetrics | null = null,
  ) {}

  /**
   * Queues `command` for the next group commit and resolves with its answer; `sent`, if given,
   * hears when its batch went to the store (once it committed, before the answer).
   */
  submit(command: Command, sent?: Sent): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, sent, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Queues an entry whose commands are built only when its batch is taken (after every
   * submission of the current event-loop turn): `build` returns them (at least one), and they are applied
   * one after the other in that batch's transaction (never split across batches). Resolves
   * with their answers in order. Lets a caller add a command to a write it queued earlier
   * (a run's last checkpoint and its outcome in one transaction) for as long as that write
   * has not gone to the store.
   */
  submitLate(build: () => Command[]): Promise<CommandResult[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command: null, build, resolve, reject });
      this.late++;
      this.schedule();
    });
  }

  /**
   * Sets who may add a command to each batch before it commits (the worker claims
   * the slots a batch's completions free in the same transaction). One rider at most.
   */
  setRider(rider: Rider | null): void {
    this.rider = rider;
  }

  /** Queues a log line; it is written with the next batch. */
  log(line: LogLine): void {
    this.logs.push(line);
    this.schedule();
  }

  /**
   * Resolves once everything submitted so far is committed, or once a commit has
   * failed (what the database refused stays queued; callers were told).
   */
  async drain(): Promise<void> {
    while (this.scheduled || this.flushing || this.queue.length || this.logs.length) {
      if (this.flushing) await this.flushing;
      else await this.flush();
      if (this.failures > 0) return;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    if (this.failures === 0) setImmediate(() => void this.flush());
    else setTimeout(() => void this.flush(), backoffDelay(STORAGE_BACKOFF, this.failures));
  }

  private flush(): Promise<void> {
    this.scheduled = false;
    if (this.flushing) return this.flushing;
    const after = () => {
      this.flushing = null;
      if (this.queue.length || this.logs.length) this.schedule();
    };
    // `then(after, …)` rather than `finally(after)`: one promise a commit instead of three.
    this.flushing = this.loop().then(after, (err: unknown) => {
      after();
      throw err;
    });
    return this.flushing;
  }

  private async loop(): Promise<void> {
    while (this.queue.length || this.logs.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      // How many commands each entry holds, when some were built late (else one each).
      const sizes: number[] | null = this.late > 0 ? [] : null;
      const commands = sizes ? this.build(batch, sizes) : batch.map((q) => q.command!);
      // Logs go first: a claim's lines are fenced, and its last lines precede its own completion.
      const logCommand = this.logs.length > 0;
      if (logCommand) {
        commands.unshift({ verb: "appendLogs", lines: this.logs });
        this.logs = [];
      }
      const skip = logCommand ? 1 : 0;
      const ride = this.rider?.(commands) ?? null;
      if (ride) commands.push(ride.command);
      const t0 = performance.now();
      try {
        const checkpoint = crashArmed && commands.some((c) => c.verb === "saveSteps");
        if (checkpoint) crashAt("before-checkpoint-commit");
        const results = await this.store.commit(commands);
        this.metrics?.commit(commands, results, (performance.now() - t0) / 1000);
        if (checkpoint) crashAt("after-checkpoint-commit");
        this.failures = 0;
        this.stats.batches += 1;
        this.stats.commands += batch.length;
        if (sizes) answer(batch, sizes, results, skip, t0);
        else
          for (let i = 0; i < batch.length; i++) {
            const q = batch[i] as Queued;
            q.sent?.(t0);
            q.resolve(results[i + skip]!);
          }
        ride?.settle({ result: results[results.length - 1]! }, t0);
      } catch (err) {
        const failure = toStorageError(err);
        this.metrics?.commitFailed();
        this.failures += 1;
        if (logCommand && failure.transient) {
          const held = (commands[0] as Extract<Command, { verb: "appendLogs" }>).lines;
          this.logs = [...held, ...this.logs].slice(-MAX_HELD_LOG_LINES);
        }
        for (const q of batch) q.reject(failure);
        ride?.settle({ error: failure }, t0);
        // Wait out the backoff before the next commit (the queue is rescheduled by flush).
        return;
      }
    }
  }

  /** The commands of `batch`, building its late entries now; `sizes` gets each entry's count. */
  private build(batch: ReadonlyArray<Queued | LateQueued>, sizes: number[]): Command[] {
    const commands: Command[] = [];
    for (const q of batch) {
      if (q.command !== null) {
        commands.push(q.command);
        sizes.push(1);
        continue;
      }
      this.late--;
      const built = q.build();
      for (const c of built) commands.push(c);
      sizes.push(built.length);
    }
    return commands;
  }
}

/** Answers each entry of `batch` from `results` (offset by `skip`), `sizes` commands each. */
function answer(
  batch: ReadonlyArray<Queued | LateQueued>,
  sizes: readonly number[],
  results: readonly CommandResult[],
  skip: number,
  sentAt: number,
): void {
  let at = skip;
  for (let i = 0; i < batch.length; i++) {
    const q = batch[i]!;
    const n = sizes[i]!;
    if (q.command !== null) {
      q.sent?.(sentAt);
      q.resolve(results[at]!);
    } else q.resolve(results.slice(at, at + n));
    at += n;
  }
}
