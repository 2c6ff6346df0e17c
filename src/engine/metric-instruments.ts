/**
 * The instruments behind `EngineMetrics`: counters and histograms of one engine, kept as
 * tallies (`metric-tally.ts`: recording costs a map lookup and an increment, and loads nothing)
 * and served through one prom-client `Registry` per engine (never prom-client's global one, so
 * several engines in one process do not mix). The registry, and prom-client with it, is made
 * when something first reads the metrics, so a process that never serves them never loads it.
 */
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import { TallyCounter as Counter, TallyHistogram as Histogram } from "./metric-tally.js";

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const BATCH = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/** The instruments of one engine's metrics. */
export class MetricInstruments {
  private served: PromClient.Registry | null = null;

  /** A prom-client registry serving every instrument (loads prom-client on first use). */
  get registry(): PromClient.Registry {
    if (this.served) return this.served;
    const { Registry } = createRequire(import.meta.url)("prom-client") as typeof PromClient;
    const registry = new Registry();
    // The tallies answer get() and reset() in prom-client's form: the registry serves them as its own.
    for (const metric of Object.values(this))
      if (metric instanceof Counter || metric instanceof Histogram)
        registry.registerMetric(metric as unknown as PromClient.Metric);
    return (this.served = registry);
  }

  readonly commitBatch = new Histogram({
    name: "sluice_commit_batch_commands",
    help: "Commands per group commit (one transaction), log appends not counted",
    buckets: BATCH,
  });
  readonly commitSeconds = new Histogram({
    name: "sluice_commit_duration_seconds",
    help: "Duration of a group commit's transaction",
    buckets: SECONDS,
  });
  readonly commitFailures = new Counter({
    name: "sluice_commit_failures_total",
    help: "Group commits the database refused (locked, disk full, I/O error); their commands were retried or given up",
  });
  readonly fenced = new Counter({
    name: "sluice_fenced_writes_total",
    help: "Writes refused because their claim's lease was stale (the run was reclaimed, cancelled or finished elsewhere)",
  });
  readonly leaseLosses = new Counter({
    name: "sluice_lease_losses_total",
    help: "Leases a heartbeat found lost (another attempt owns the run)",
  });
  readonly reclaimed = new Counter({
    name: "sluice_leases_reclaimed_total",
    help: "Leases this process ended before their run finished, by workflow, outcome (retry: another attempt is queued, failed: that was the last attempt) and cause (expired: its worker stopped heartbeating; released: its worker process exited, or its worker stopped after its drain timeout)",
    labelNames: ["workflow", "outcome", "cause"] as const,
  });
  readonly cancels = new Counter({
    name: "sluice_run_cancels_total",
    help: "Cancel requests this process handled (API, CLI, pipelines), by the run's status afterwards (cancelled, or the status it had already finished with)",
    labelNames: ["status"] as const,
  });
  readonly outcomes = new Counter({
    name: "sluice_run_attempts_finished_total",
    help: "Claims that ended with an outcome written by this process, by outcome (succeeded, failed, cancelled, retry)",
    labelNames: ["outcome"] as const,
  });
  readonly retries = new Counter({
    name: "sluice_run_retries_total",
    help: "Runs sent back for another attempt after a failed one (outcome retry)",
  });
  readonly attemptSeconds = new Histogram({
    name: "sluice_run_attempt_duration_seconds",
    help: "Duration of one claim of a run in this process, from the start of execution to its end (completed, suspended, fenced, abandoned)",
    labelNames: ["workflow", "result"] as const,
    buckets: SECONDS,
  });
  readonly stepSeconds = new Histogram({
    name: "sluice_step_duration_seconds",
    help: "Duration of a step's body, from its start to its checkpoint, by outcome (done: checkpointed, error: gave up)",
    labelNames: ["workflow", "outcome"] as const,
    buckets: SECONDS,
  });

  readonly claimToStart = new Histogram({
    name: "sluice_run_claim_to_start_seconds",
    help: "From a claim reaching this worker to its execution starting (resolving and loading the run's code version)",
    labelNames: ["workflow"] as const,
    buckets: SECONDS,
  });
  readonly queueWait = new Histogram({
    name: "sluice_run_queue_wait_seconds",
    help: "From a run becoming due (enqueued or its runAt, a timer, retry or wake-up due, a lease reclaimed) to its execution starting in this process (time in the queue, the claim and loading its code), or to its claim by an external worker through this server (worker protocol); store clock",
    labelNames: ["workflow"] as const,
    buckets: [...SECONDS, 4 * 3600, 12 * 3600, 86_400],
  });
  readonly endToEnd = new Histogram({
    name: "sluice_run_end_to_end_seconds",
    help: "From enqueue to the final outcome (succeeded, failed, cancelled) written by this process, store clock; waits and retries included",
    labelNames: ["workflow", "status"] as const,
    buckets: [...SECONDS, 4 * 3600, 12 * 3600, 86_400, 7 * 86_400],
  });
  readonly decisions = new Counter({
    name: "sluice_cascade_decisions_total",
    help: "Pipeline dispatch decisions made in this process, by kind (dispatched, join-pending, join-fired, debounce-scheduled, debounced, skipped, freshness-run)",
    labelNames: ["kind"] as const,
  });
}
