import type { Command, CommandResult, LogLine, Store } from "../store/types.js";

interface Queued {
  command: Command;
  resolve: (r: CommandResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: commands submitted by many runs during one event-loop turn are
 * applied by the store in one transaction (one fsync), then each caller gets its own
 * answer. While a commit is in flight (Postgres), new commands gather for the next.
 * Log lines ride along with the next batch.
 */
export class GroupCommitter {
  private queue: Queued[] = [];
  private logs: LogLine[] = [];
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  /** Batches committed and commands they held, for benchmarks and tests. */
  readonly stats = { batches: 0, commands: 0 };

  constructor(
    private readonly store: Store,
    private readonly maxBatch = 5_000,
  ) {}

  /** Queues `command` for the next group commit and resolves with its answer. */
  submit(command: Command): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject });
      this.schedule();
    });
  }

  /** Queues a log line; it is written with the next batch. */
  log(line: LogLine): void {
    this.logs.push(line);
    this.schedule();
  }

  /** Resolves once everything submitted so far is committed. */
  async drain(): Promise<void> {
    while (this.scheduled || this.flushing || this.queue.length || this.logs.length) {
      if (this.flushing) await this.flushing;
      else await this.flush();
    }
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private flush(): Promise<void> {
    this.scheduled = false;
    if (this.flushing) return this.flushing;
    this.flushing = this.loop().finally(() => {
      this.flushing = null;
      if (this.queue.length || this.logs.length) this.schedule();
    });
    return this.flushing;
  }

  private async loop(): Promise<void> {
    while (this.queue.length || this.logs.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      const commands = batch.map((q) => q.command);
      // Logs go first: a claim's lines are fenced, and its last lines precede its own completion.
      const logCommand = this.logs.length > 0;
      if (logCommand) {
        commands.unshift({ verb: "appendLogs", lines: this.logs });
        this.logs = [];
      }
      const skip = logCommand ? 1 : 0;
      try {
        const results = await this.store.commit(commands);
        this.stats.batches += 1;
        this.stats.commands += batch.length;
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i + skip]!);
      } catch (err) {
        for (const q of batch) q.reject(err);
      }
    }
  }
}
