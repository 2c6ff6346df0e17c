/**
 * The engine's in-process metrics: what only this process sees as it happens (group
 * commits, fenced writes, lease losses, retries, how long claims and steps take),
 * kept in a prom-client `Registry` of its own (never prom-client's global one, so
 * several engines in one process do not mix). Recording is a counter increment or a
 * histogram observation; nothing is computed until `/metrics` is scraped. Figures the
 * database holds (runs by status, queue depth, approvals waiting) are read at scrape
 * time instead (`Store.metricsSnapshot`, `http/metrics.ts`).
 */
import { Counter, Histogram, Registry } from "prom-client";
import type { Command, CommandResult } from "../store/types.js";

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const BATCH = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/** How a claim ended in this process (see `ExecutionResult`), plus `failed-to-start` (unknown workflow or version). */
export type AttemptResult = "completed" | "suspended" | "fenced" | "abandoned" | "failed-to-start";

/** Counters and histograms of one engine (see the module comment). */
export class EngineMetrics {
  readonly registry = new Registry();
  private readonly commitBatch = new Histogram({
    name: "sluice_commit_batch_commands",
    help: "Commands per group commit (one transaction), log appends not counted",
    buckets: BATCH,
    registers: [this.registry],
  });
  private readonly commitSeconds = new Histogram({
    name: "sluice_commit_duration_seconds",
    help: "Duration of a group commit's transaction",
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly commitFailures = new Counter({
    name: "sluice_commit_failures_total",
    help: "Group commits the database refused (locked, disk full, I/O error); their commands were retried or given up",
    registers: [this.registry],
  });
  private readonly fenced = new Counter({
    name: "sluice_fenced_writes_total",
    help: "Writes refused because their claim's lease was stale (the run was reclaimed, cancelled or finished elsewhere)",
    registers: [this.registry],
  });
  private readonly leaseLosses = new Counter({
    name: "sluice_lease_losses_total",
    help: "Leases a heartbeat found lost (another attempt owns the run)",
    registers: [this.registry],
  });
  private readonly outcomes = new Counter({
    name: "sluice_run_attempts_finished_total",
    help: "Claims that ended with an outcome written by this process, by outcome (succeeded, failed, cancelled, retry)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: "sluice_run_retries_total",
    help: "Runs sent back for another attempt after a failed one (outcome retry)",
    registers: [this.registry],
  });
  private readonly attemptSeconds = new Histogram({
    name: "sluice_run_attempt_duration_seconds",
    help: "Duration of one claim of a run in this process, from the start of execution to its end (completed, suspended, fenced, abandoned)",
    labelNames: ["workflow", "result"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly stepSeconds = new Histogram({
    name: "sluice_step_duration_seconds",
    help: "Duration of a step's body, from its start to its checkpoint, by outcome (done: checkpointed, error: gave up)",
    labelNames: ["workflow", "outcome"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  private readonly claimToStart = new Histogram({
    name: "sluice_run_claim_to_start_seconds",
    help: "From a claim reaching this worker to its execution starting (resolving and loading the run's code version)",
    labelNames: ["workflow"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly endToEnd = new Histogram({
    name: "sluice_run_end_to_end_seconds",
    help: "From enqueue to the final outcome (succeeded, failed, cancelled) written by this process, store clock; waits and retries included",
    labelNames: ["workflow", "status"] as const,
    buckets: [...SECONDS, 4 * 3600, 12 * 3600, 86_400, 7 * 86_400],
    registers: [this.registry],
  });
  private readonly decisions = new Counter({
    name: "sluice_cascade_decisions_total",
    help: "Pipeline dispatch decisions made in this process, by kind (dispatched, join-pending, join-fired, debounce-scheduled, debounced, skipped, freshness-run)",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  /** Records one group commit: its commands, their answers, and how long the transaction took. */
  commit(commands: readonly Command[], results: readonly CommandResult[], seconds: number): void {
    let counted = 0;
    for (let i = 0; i < commands.length; i++) {
      const command = commands[i]!;
      const result = results[i];
      if (command.verb === "appendLogs") continue;
      counted++;
      if (!result) continue;
      if (!result.ok) {
        if (result.fenced) this.fenced.inc();
        continue;
      }
      if (command.verb === "heartbeat" && result.lost?.length) this.leaseLosses.inc(result.lost.length);
      if (command.verb === "complete") {
        this.outcomes.inc({ outcome: command.outcome.status });
        if (command.outcome.status === "retry") this.retries.inc();
      }
    }
    this.commitBatch.observe(counted);
    this.commitSeconds.observe(seconds);
  }

  /** Records a group commit the database refused. */
  commitFailed(): void {
    this.commitFailures.inc();
  }

  /** Records the end of a claim executed by this process. */
  attempt(workflow: string, result: AttemptResult, seconds: number): void {
    this.attemptSeconds.observe({ workflow, result }, seconds);
  }

  /** Records how long a claim took from reaching this worker to the start of its execution. */
  started(workflow: string, seconds: number): void {
    this.claimToStart.observe({ workflow }, seconds);
  }

  /** Records a run's final outcome written by this process, `seconds` after it was enqueued. */
  finished(workflow: string, status: "succeeded" | "failed" | "cancelled", seconds: number): void {
    this.endToEnd.observe({ workflow, status }, Math.max(0, seconds));
  }

  /** Records pipeline dispatch decisions by kind (`DECISION_OUTCOMES` of `pipeline/decision-outcomes.ts`). */
  decided(decisions: ReadonlyArray<{ outcome: string }>): void {
    for (const d of decisions) this.decisions.inc({ kind: d.outcome });
  }

  /** Records a step body that ended: checkpointed (`done`) or given up (`error`). */
  step(workflow: string, outcome: "done" | "error", seconds: number): void {
    this.stepSeconds.observe({ workflow, outcome }, seconds);
  }
}
